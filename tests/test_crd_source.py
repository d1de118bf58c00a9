"""karpenter_gpu.check.crd_source: --crds / $KARPENTER_GPU_CRDS / verified user cache. Never touches the network."""

from __future__ import annotations

import hashlib
import io
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from karpenter_gpu.check import crd_source
from karpenter_gpu.check.conformance import load_crds
from karpenter_gpu.check.crd_source import PINNED_CRDS, CrdSourceError, cache_dir, resolve_crd_dir
from tests.conftest import find_crds_dir


@pytest.fixture
def shared_crds() -> Path:
    directory = find_crds_dir()
    if directory is None or not all((directory / name).is_file() for name in PINNED_CRDS):
        pytest.fail("Karpenter v1.14.1 CRDs not found: set KARPENTER_GPU_CRDS")
    return directory


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("KARPENTER_GPU_CRDS", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg"


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Fail any download; the list records what was asked for."""
    requested: list[str] = []

    def refuse(url: str, timeout: float | None = None):
        requested.append(url)
        raise AssertionError(f"unexpected download of {url}")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    return requested


def serve(monkeypatch: pytest.MonkeyPatch, files: Path, tamper: set[str] = frozenset()) -> list[tuple[str, float]]:
    """Patch urlopen to serve `files` by name; names in `tamper` get one byte changed."""
    requested: list[tuple[str, float]] = []

    def opener(url: str, timeout: float | None = None):
        requested.append((url, timeout))
        name = url.rsplit("/", 1)[1]
        data = (files / name).read_bytes()
        if name in tamper:
            data = data.replace(b"karpenter", b"Karpenter", 1)
        return io.BytesIO(data)

    monkeypatch.setattr(urllib.request, "urlopen", opener)
    return requested


def test_pinned_hashes_match_the_shared_copies(shared_crds: Path) -> None:
    for name, digest in PINNED_CRDS.items():
        assert hashlib.sha256((shared_crds / name).read_bytes()).hexdigest() == digest, name


def test_explicit_folder_wins_over_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               no_network: list[str]) -> None:
    monkeypatch.setenv("KARPENTER_GPU_CRDS", str(tmp_path / "env"))
    assert resolve_crd_dir(tmp_path / "mine") == tmp_path / "mine"
    assert resolve_crd_dir(str(tmp_path / "mine")) == tmp_path / "mine"
    assert no_network == []


def test_environment_wins_over_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_network: list[str]) -> None:
    monkeypatch.setenv("KARPENTER_GPU_CRDS", str(tmp_path / "env"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert resolve_crd_dir() == tmp_path / "env"
    assert resolve_crd_dir(None) == tmp_path / "env"
    assert no_network == [] and not (tmp_path / "xdg").exists()


def test_user_folders_are_not_hash_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KARPENTER_GPU_CRDS", raising=False)
    (tmp_path / "karpenter.sh_nodepools.yaml").write_text("# another Karpenter version\n")
    assert resolve_crd_dir(tmp_path) == tmp_path  # returned as is: may hold other versions on purpose


def test_cache_location_follows_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "karpenter-gpu" / "crds" / "v1.14.1"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "karpenter-gpu" / "crds" / "v1.14.1"


def test_first_use_downloads_verifies_and_caches(cache_home: Path, shared_crds: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    requested = serve(monkeypatch, shared_crds)
    directory = resolve_crd_dir()
    assert directory == cache_home / "karpenter-gpu" / "crds" / "v1.14.1"
    base = "https://raw.githubusercontent.com/aws/karpenter-provider-aws/v1.14.1/pkg/apis/crds/"
    assert sorted(requested) == sorted((base + name, 30) for name in PINNED_CRDS)
    assert sorted(p.name for p in directory.iterdir()) == sorted(PINNED_CRDS)  # no temp files left
    for name in PINNED_CRDS:
        assert (directory / name).read_bytes() == (shared_crds / name).read_bytes()
    assert ("karpenter.sh/v1", "NodePool") in load_crds(directory)

    requested.clear()
    assert resolve_crd_dir() == directory
    assert requested == []  # second use: served from the cache


def test_a_corrupted_cache_file_is_fetched_again(cache_home: Path, shared_crds: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    requested = serve(monkeypatch, shared_crds)
    directory = resolve_crd_dir()
    (directory / "karpenter.sh_nodepools.yaml").write_text("truncated")
    requested.clear()
    assert resolve_crd_dir() == directory
    assert [url.rsplit("/", 1)[1] for url, _ in requested] == ["karpenter.sh_nodepools.yaml"]
    assert (directory / "karpenter.sh_nodepools.yaml").read_bytes() == \
        (shared_crds / "karpenter.sh_nodepools.yaml").read_bytes()


def test_tampered_download_is_refused_and_nothing_is_cached(cache_home: Path, shared_crds: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    serve(monkeypatch, shared_crds, tamper={"karpenter.sh_nodepools.yaml"})
    with pytest.raises(CrdSourceError) as raised:
        resolve_crd_dir()
    message = str(raised.value)
    assert "karpenter.sh_nodepools.yaml" in message and PINNED_CRDS["karpenter.sh_nodepools.yaml"] in message
    assert "--crds DIR" in message and "KARPENTER_GPU_CRDS" in message
    directory = cache_dir()
    assert not directory.exists() or list(directory.iterdir()) == []


def test_network_failure_is_a_clear_error(cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def offline(url: str, timeout: float | None = None):
        raise urllib.error.URLError("no route to host")

    monkeypatch.setattr(urllib.request, "urlopen", offline)
    with pytest.raises(CrdSourceError) as raised:
        resolve_crd_dir()
    assert "no route to host" in str(raised.value)
    assert "--crds DIR" in str(raised.value) and "KARPENTER_GPU_CRDS" in str(raised.value)
    assert not cache_dir().exists() or list(cache_dir().iterdir()) == []


def test_crd_source_error_is_not_a_props_error() -> None:
    from karpenter_gpu.errors import KarpenterGpuError

    assert issubclass(CrdSourceError, RuntimeError) and not issubclass(CrdSourceError, KarpenterGpuError)
    assert crd_source.DOWNLOAD_TIMEOUT == 30
