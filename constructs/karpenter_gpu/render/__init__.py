"""Rendering helpers shared by every human-facing output (terminal text, markdown, SVG)."""
