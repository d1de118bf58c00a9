"""Where the Karpenter CRDs for conformance checks come from.

An explicit folder (``--crds DIR``) wins, then ``$KARPENTER_GPU_CRDS``, then a per-user cache
that is filled on first use with the four v1.14.1 CRD files, each checked against a pinned sha256.
Only the cache is verified: a folder the user names may hold other Karpenter versions on purpose.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.request
from http.client import HTTPException
from pathlib import Path

KARPENTER_VERSION = "v1.14.1"
ENV_VAR = "KARPENTER_GPU_CRDS"
CRD_BASE_URL = f"https://raw.githubusercontent.com/aws/karpenter-provider-aws/{KARPENTER_VERSION}/pkg/apis/crds/"
#: File name -> sha256 of the upstream file at the pinned tag.
PINNED_CRDS: dict[str, str] = {
    "karpenter.k8s.aws_ec2nodeclasses.yaml": "62dec59f01c0972d4503ca3ed25f243ba9c2f561be0d964ce7a14c8df406132f",
    "karpenter.sh_nodeclaims.yaml": "96037dc241031fe0f7a09ddf78183d885ce6a1dfe115f7b3fbf8a12c564be694",
    "karpenter.sh_nodeoverlays.yaml": "6ff6199aff096cc87cd9508f8c5ae62c6d3452aa90c2828ee36380340f3ece62",
    "karpenter.sh_nodepools.yaml": "3bb64a20c80776b77aa19a699ebdaf34480a7b2e7ec4ef890b43225b3517f878",
}
DOWNLOAD_TIMEOUT = 30  # seconds, per file

_HINT = f"pass --crds DIR or set {ENV_VAR} to a folder holding the Karpenter {KARPENTER_VERSION} CRD YAML files"


class CrdSourceError(RuntimeError):
    """The CRDs could not be obtained (network failure, hash mismatch, unwritable cache)."""


def resolve_crd_dir(explicit: str | Path | None = None) -> Path:
    """The folder to load CRDs from: ``explicit``, else ``$KARPENTER_GPU_CRDS``, else the filled cache."""
    if explicit is not None and str(explicit) != "":
        return Path(explicit)
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    return ensure_cache()


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME`` (or ~/.cache) / karpenter-gpu/crds/<version>."""
    base = os.environ.get("XDG_CACHE_HOME")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"  # XDG: relative is invalid
    return root / "karpenter-gpu" / "crds" / KARPENTER_VERSION


def ensure_cache() -> Path:
    """The cache folder, downloading whichever pinned CRD is missing or does not match its hash."""
    directory = cache_dir()
    wanted = [name for name, digest in PINNED_CRDS.items() if _sha256_of(directory / name) != digest]
    if not wanted:
        return directory
    # Fetch and verify everything before writing anything, so a failure leaves the cache as it was.
    fetched = {name: _download(name) for name in wanted}
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for name, data in fetched.items():
            _write_atomically(directory / name, data)
    except OSError as ex:
        raise CrdSourceError(f"cannot write the CRD cache {directory}: {ex}; {_HINT}") from ex
    return directory


def _download(name: str) -> bytes:
    url = CRD_BASE_URL + name
    try:
        with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT) as response:  # looked up per call: tests patch it
            data = response.read()
    except (OSError, HTTPException, ValueError) as ex:  # URLError, timeouts, truncated bodies
        raise CrdSourceError(f"cannot download {url}: {ex}; {_HINT}") from ex
    digest = hashlib.sha256(data).hexdigest()
    if digest != PINNED_CRDS[name]:
        raise CrdSourceError(
            f"{url} has sha256 {digest}, expected {PINNED_CRDS[name]} (Karpenter {KARPENTER_VERSION}); "
            f"nothing was cached. {_HINT[0].upper()}{_HINT[1:]}"
        )
    return data


def _write_atomically(path: Path, data: bytes) -> None:
    # A concurrent reader sees the old file or the whole new one, never a partial download.
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _sha256_of(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
