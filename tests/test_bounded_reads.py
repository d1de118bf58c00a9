"""Every input is read by one bounded reader (``karpenter_gpu._fs.read_bounded``), and every price as Go reads it.

- Manifests (validate, explain, diff folders, the pre-commit hook's ``validate dist``), ``--aws``, ``--nodes`` and
  ``--catalog``: a regular file up to its bound, a pipe named on the command line (``<(kubectl ...)``) up to the
  same bound; a device (``/dev/zero``, ``/dev/urandom``) or socket refused unopened, and a FIFO or device found
  while walking a folder refused at once (KG920): one coded line, exit 2, no hang, no MemoryError.
- Prices in ``--aws`` and ``--catalog``: ``strconv.ParseFloat``'s grammar (``karpenter_gpu.k8s.go_float``), the
  exponent bounded before any ``Decimal`` is built; negative capacities in ``--nodes`` and duplicate JSON keys are
  refused with a code.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from decimal import Decimal
from pathlib import Path

import pytest

from karpenter_gpu._fs import read_bounded
from karpenter_gpu.analysis.catalog import load_catalog
from karpenter_gpu.cli.main import main
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.k8s import go_float
from karpenter_gpu.k8s.aws_facts import load_aws_facts
from karpenter_gpu.k8s.cluster_nodes import cluster_nodes
from karpenter_gpu.k8s.input_layout import read_path
from karpenter_gpu.k8s.yaml_loader import MAX_FILE_BYTES
from tests.conftest import ROOT, find_crds_dir

PROD = ROOT / "dist" / "prod"
POOL = PROD / "NodePool.gpu-inference.k8s.yaml"
CLI = Path(sys.executable).with_name("karpenter-gpu")
STAMP = "2025-11-03T00:00:00+00:00"


@pytest.fixture(autouse=True)
def _crds(monkeypatch):
    monkeypatch.setenv("KARPENTER_GPU_CRDS", str(find_crds_dir()))


def one_coded_line(capsys, argv: list[str], code: str) -> str:
    """``argv`` exits 2 with exactly one line on stderr, carrying ``code``, within a few seconds."""
    start = time.perf_counter()
    assert main(argv) == 2
    elapsed = time.perf_counter() - start
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and f"[{code}]" in lines[0] and "Traceback" not in err, err
    assert elapsed < 10, elapsed
    return lines[0]


def run_cli(args: list[str], *, shell: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """The installed command in a child process (a hang is a timeout, not a stuck test run)."""
    env = {**os.environ, "KARPENTER_GPU_CRDS": str(find_crds_dir())}
    if shell is not None:
        return subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=timeout, env=env)
    return subprocess.run([str(CLI), *args], capture_output=True, text=True, timeout=timeout, env=env)


def folder_with(tmp_path: Path, name: str, make) -> Path:
    root = tmp_path / "dist"
    root.mkdir()
    shutil.copy(POOL, root / POOL.name)
    make(root / name)
    return root


# ---------------------------------------------------------------------------------------------
# The reader itself


def test_a_regular_file_is_read_up_to_its_bound(tmp_path):
    path = tmp_path / "a.yaml"
    path.write_bytes(b"x" * 100)
    assert read_bounded(path, 100) == b"x" * 100
    with pytest.raises(KarpenterGpuError) as err:
        read_bounded(path, 99)
    assert err.value.code == "KG906" and "100 bytes" in str(err.value)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_a_device_is_refused_unopened_whoever_names_it(tmp_path, device):
    link = tmp_path / "x.yaml"
    link.symlink_to(device)
    for named in (True, False):
        for path in (device, link):  # a symbolic link is judged by what it points to
            with pytest.raises(KarpenterGpuError) as err:
                read_bounded(path, MAX_FILE_BYTES, named=named)
            assert err.value.code == "KG920" and "character device" in str(err.value)


def test_a_socket_is_refused(tmp_path):
    path = tmp_path / "s.yaml"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        with pytest.raises(KarpenterGpuError) as err:
            read_bounded(path, 10)
    assert err.value.code == "KG920" and "socket" in str(err.value)


def test_a_fifo_found_in_a_folder_is_refused_at_once(tmp_path):
    fifo = tmp_path / "x.yaml"
    os.mkfifo(fifo)
    start = time.perf_counter()
    with pytest.raises(KarpenterGpuError) as err:
        read_bounded(fifo, 10, named=False)  # nobody writes it: opening it would wait for ever
    assert err.value.code == "KG920" and "FIFO" in str(err.value)
    assert time.perf_counter() - start < 1


def _pipe(data: bytes) -> tuple[str, threading.Thread]:
    """A /dev/fd path to the read end of a pipe a thread fills with ``data`` (what ``<(command)`` passes)."""
    read_end, write_end = os.pipe()

    def write() -> None:
        try:
            os.write(write_end, data)
        except BrokenPipeError:
            pass  # the reader stopped at its bound
        finally:
            os.close(write_end)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return f"/dev/fd/{read_end}", thread


def test_a_named_pipe_is_read_up_to_its_bound():
    path, thread = _pipe(b"y\n" * 50)
    try:
        assert read_bounded(path, 100) == b"y\n" * 50
    finally:
        os.close(int(path.rpartition("/")[2]))
    thread.join(5)
    path, thread = _pipe(b"y\n" * 1000)  # more than the bound: refused after bound + 1 bytes, not drained
    try:
        with pytest.raises(KarpenterGpuError) as err:
            read_bounded(path, 100)
        assert err.value.code == "KG906" and "more than 100 bytes" in str(err.value)
    finally:
        os.close(int(path.rpartition("/")[2]))
    thread.join(5)


def test_a_pipe_inside_a_walked_folder_is_refused_though_a_named_one_is_read():
    path, thread = _pipe(b"data")
    try:
        with pytest.raises(KarpenterGpuError) as err:
            read_bounded(path, 100, named=False)
        assert err.value.code == "KG920"
    finally:
        os.close(int(path.rpartition("/")[2]))
    thread.join(5)


# ---------------------------------------------------------------------------------------------
# Manifests: validate, explain, diff, the pre-commit hook (validate dist)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_yaml_link_to_a_device_in_the_folder_is_one_coded_line(tmp_path, capsys, device):
    root = folder_with(tmp_path, "zz.yaml", lambda p: p.symlink_to(device))
    for argv in (["validate", str(root)], ["explain", str(root)], ["diff", str(root), str(PROD)],
                 ["diff", str(PROD), str(root)]):
        line = one_coded_line(capsys, argv, "KG920")
        assert "zz.yaml" in line


def test_a_fifo_named_yaml_in_the_folder_does_not_hang_any_command(tmp_path):
    root = folder_with(tmp_path, "x.yaml", os.mkfifo)
    for args in (["validate", str(root)], ["explain", str(root)], ["diff", str(root), str(PROD)]):
        done = run_cli(args, timeout=120)
        assert done.returncode == 2, done.stderr
        assert "[KG920]" in done.stderr and "x.yaml" in done.stderr and "Traceback" not in done.stderr


def test_the_pre_commit_hook_refuses_a_committed_link_to_dev_zero(tmp_path):
    """The hook runs ``karpenter-gpu validate dist`` (.pre-commit-hooks.yaml) in the checkout, where git has made the
    committed link; under a memory cap it used to end in KG919 MemoryError."""
    root = folder_with(tmp_path, "zero.yaml", lambda p: p.symlink_to("/dev/zero"))
    done = run_cli([], shell=f"ulimit -v 4000000; cd {tmp_path} && {CLI} validate {root.name}")
    assert done.returncode == 2 and "[KG920]" in done.stderr and "KG919" not in done.stderr, done.stderr


def test_a_manifest_from_a_process_substitution_is_read(tmp_path):
    done = run_cli([], shell=f"{CLI} validate <(cat {POOL})")
    assert done.returncode == 0, done.stderr


def test_validate_of_a_device_or_an_endless_pipe_is_refused(capsys):
    one_coded_line(capsys, ["validate", "/dev/zero"], "KG920")
    done = run_cli([], shell=f"{CLI} validate <(yes)")
    assert done.returncode == 2 and "[KG906]" in done.stderr, done.stderr


# ---------------------------------------------------------------------------------------------
# --aws, --catalog, --nodes


def test_aws_from_dev_zero_is_refused_unread(capsys):
    one_coded_line(capsys, ["explain", str(ROOT / "dist"), "--aws", "/dev/zero"], "KG920")


def test_aws_from_an_endless_pipe_stops_at_the_bound():
    start = time.perf_counter()
    done = run_cli([], shell=f"{CLI} explain {ROOT / 'dist'} --aws <(yes)")
    assert done.returncode == 2 and "[KG730]" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert time.perf_counter() - start < 60


def test_aws_facts_from_a_pipe_are_read(tmp_path):
    document = {"SpotPriceHistory": [{"InstanceType": "g5.xlarge", "AvailabilityZone": "us-east-1a",
                                      "ProductDescription": "Linux/UNIX", "SpotPrice": "0.4012", "Timestamp": STAMP}]}
    path, thread = _pipe(json.dumps(document).encode())
    try:
        facts = load_aws_facts([path])
    finally:
        os.close(int(path.rpartition("/")[2]))
    thread.join(5)
    assert facts.spot_price("g5.xlarge", "us-east-1a") == (True, Decimal("0.4012"))


def test_catalog_from_a_device_is_refused(capsys):
    one_coded_line(capsys, ["explain", str(ROOT / "dist"), "--catalog", "/dev/urandom"], "KG920")


def _nodes_yaml() -> str:
    import yaml

    claim = {"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
             "metadata": {"name": "a", "labels": {"karpenter.sh/nodepool": "gpu-inference",
                                                  "node.kubernetes.io/instance-type": "g5.xlarge"}},
             "spec": {}, "status": {"providerID": "aws:///us-east-1a/i-a",
                                    "capacity": {"cpu": "4", "memory": "15155Mi", "nvidia.com/gpu": "1"}}}
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [claim]})


def test_nodes_from_a_pipe_are_accepted(capsys, tmp_path):
    """``--nodes <(kubectl get nodeclaims -o yaml)`` was KG900 (not a file, not a folder) while --aws read pipes."""
    path, thread = _pipe(_nodes_yaml().encode())
    try:
        assert main(["explain", str(PROD), "--nodes", path, "--format", "json"]) == 0
    finally:
        os.close(int(path.rpartition("/")[2]))
    thread.join(5)
    out = json.loads(capsys.readouterr().out)
    [env] = out["environments"]
    assert env["nodes"]["read"] == 1 and env["nodes"]["counted"] == 1, env["nodes"]


def test_a_nodes_folder_holding_a_link_to_dev_zero_is_refused(capsys, tmp_path):
    folder = tmp_path / "nodes"
    folder.mkdir()
    (folder / "claims.yaml").write_text(_nodes_yaml())
    (folder / "zero.yaml").symlink_to("/dev/zero")
    one_coded_line(capsys, ["explain", str(PROD), "--nodes", str(folder)], "KG920")


def test_a_nodes_file_from_dev_urandom_is_refused(capsys):
    one_coded_line(capsys, ["explain", str(PROD), "--nodes", "/dev/urandom"], "KG920")


# ---------------------------------------------------------------------------------------------
# Numbers as Go reads them

#: (text, what Go 1.26's strconv.ParseFloat(text, 64) answers): a value, or syntax / range / special (Inf, NaN).
#: Checked against Go itself; a value Go reads as 0 from a non-zero number is "range" here (refused).
GO_PARSE_FLOAT = [
    ("0.4012", 0.4012), ("1_000", 1000.0), ("1_0.5", 10.5), ("0x1_0p0", 16.0), ("0x_1p0", 1.0), ("0x1p-2", 0.25),
    ("0x1.8p1", 3.0), ("0X1P3", 8.0), ("0x.8p0", 0.5), ("0x1.p0", 1.0), ("+.5", 0.5), ("5.", 5.0), ("1E5", 1e5),
    ("00012", 12.0), ("-0", 0.0), ("1e0000000000000000000000000000005", 1e5), ("1.7976931348623157e308", 1.7976931348623157e308),
    ("4.9e-324", 5e-324), ("0e99999", 0.0),
    ("0x1", "syntax"), (" 0.5 ", "syntax"), ("0.5\n", "syntax"), ("١٢", "syntax"), (".", "syntax"), ("1e", "syntax"),
    ("1e+", "syntax"), ("infin", "syntax"), ("-NaN", "syntax"), ("+nan", "syntax"), ("0b101", "syntax"),
    ("0o17", "syntax"), ("1__0", "syntax"), ("1e_5", "syntax"), ("1_e5", "syntax"), ("0x1_p0", "syntax"),
    ("_1", "syntax"), ("1_", "syntax"), ("", "syntax"), ("12", 12.0), ("１２", "syntax"),
    ("Inf", "special"), ("-inf", "special"), ("+Infinity", "special"), ("NaN", "special"),
    ("1e999999", "range"), ("1.8e308", "range"), ("0x1p1024", "range"), ("1e-999999", "range"),
    ("2.4e-324", "range"), ("0x1p-1075", "range"),
]


@pytest.mark.parametrize(("text", "go"), GO_PARSE_FLOAT)
def test_prices_parse_as_go_strconv_parse_float(text, go):
    if isinstance(go, float):
        assert float(go_float.parse(text)) == go
    else:
        with pytest.raises(go_float.GoFloatError) as err:
            go_float.parse(text)
        assert err.value.reason == go


def test_a_decimal_price_keeps_its_written_digits():
    assert str(go_float.parse("1.0060")) == "1.0060" and str(go_float.parse("0.4012")) == "0.4012"


@pytest.mark.parametrize("text", ["1e999999", "1e" + "9" * 100_000, "9" * 100_000, "0x" + "f" * 100_000 + "p0",
                                  "1e-999999999"])
def test_a_hostile_exponent_is_refused_fast(text):
    start = time.perf_counter()
    with pytest.raises(go_float.GoFloatError):
        go_float.parse(text)
    assert time.perf_counter() - start < 0.5


def _spot_file(tmp_path: Path, price: str) -> Path:
    path = tmp_path / "spot.json"
    path.write_text(json.dumps({"SpotPriceHistory": [
        {"InstanceType": "g5.xlarge", "AvailabilityZone": "us-east-1a", "ProductDescription": "Linux/UNIX",
         "SpotPrice": price, "Timestamp": STAMP}]}))
    return path


@pytest.mark.parametrize(("price", "code"), [("1e999999", "KG736"), ("Infinity", "KG736"), ("NaN", "KG736"),
                                             ("1e-999999", "KG736"), ("١٢", "KG733"), (" 0.5 ", "KG733"),
                                             ("0.5\n", "KG733"), ("1__000", "KG733"), ("-0.1", "KG733")])
def test_a_spot_price_go_cannot_read_is_refused_fast(tmp_path, capsys, price, code):
    path = _spot_file(tmp_path, price)
    start = time.perf_counter()
    with pytest.raises(KarpenterGpuError) as err:
        load_aws_facts([path])
    assert err.value.code == code and time.perf_counter() - start < 0.5
    one_coded_line(capsys, ["explain", str(ROOT / "dist"), "--aws", str(path)], code)


def test_a_spot_price_with_go_underscores_is_read_as_go_reads_it(tmp_path):
    """Go's ParseFloat reads "1_000" as 1000 (underscores between digits: readFloat + underscoreOK), so the
    provider would: it is not refused."""
    facts = load_aws_facts([_spot_file(tmp_path, "1_000")])
    assert facts.spot_price("g5.xlarge", "us-east-1a") == (True, Decimal(1000))


def _catalog(tmp_path: Path, price, name: str = "cat.json") -> Path:
    entry = {"name": "g5.xlarge", "labels": {"kubernetes.io/arch": "amd64"},
             "allocatable": {"cpu": "3920m", "memory": "14162Mi"}, "price": price}
    path = tmp_path / name
    text = json.dumps({"source": "t", "types": [entry]})
    if isinstance(price, str) and price.startswith("json:"):  # a JSON number literal, not a string
        text = text.replace(json.dumps(price), price[5:])
    path.write_text(text)
    return path


@pytest.mark.parametrize(("price", "code"), [("1e999999", "KG702"), ("inf", "KG702"), ("json:1e400", "KG702"),
                                             ("١٢", "KG700"), (" 0.5 ", "KG700"), ("1__0", "KG700")])
def test_a_catalog_price_go_cannot_read_is_refused_fast(tmp_path, capsys, price, code):
    path = _catalog(tmp_path, price)
    start = time.perf_counter()
    with pytest.raises(KarpenterGpuError) as err:
        load_catalog(path)
    assert err.value.code == code and time.perf_counter() - start < 0.5
    one_coded_line(capsys, ["explain", str(ROOT / "dist"), "--catalog", str(path)], code)


def test_catalog_prices_go_reads_are_kept(tmp_path):
    assert load_catalog(_catalog(tmp_path, "1.006")).by_name["g5.xlarge"].price == Decimal("1.006")
    assert load_catalog(_catalog(tmp_path, 2)).by_name["g5.xlarge"].price == Decimal(2)
    assert load_catalog(_catalog(tmp_path, "json:1.25")).by_name["g5.xlarge"].price == Decimal("1.25")


@pytest.mark.parametrize("quantity", ["١٢", "12\n", "-4"])
def test_a_catalog_quantity_kubernetes_cannot_read_is_refused(tmp_path, quantity):
    path = tmp_path / "cat.json"
    path.write_text(json.dumps({"types": [{"name": "g5.xlarge", "labels": {"kubernetes.io/arch": "amd64"},
                                           "allocatable": {"cpu": quantity, "memory": "1Gi"}, "price": None}]}))
    with pytest.raises(KarpenterGpuError) as err:
        load_catalog(path)
    assert err.value.code == "KG700"


@pytest.mark.parametrize("capacity", ["-1", "-8Gi", "-1e3"])
def test_a_negative_node_capacity_is_refused(capsys, tmp_path, capacity):
    claim = {"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
             "metadata": {"name": "a", "labels": {"karpenter.sh/nodepool": "gpu-inference"}},
             "spec": {}, "status": {"providerID": "aws:///us-east-1a/i-a", "capacity": {"nvidia.com/gpu": capacity}}}
    with pytest.raises(KarpenterGpuError) as err:
        cluster_nodes([claim])
    assert err.value.code == "KG721" and "nvidia.com/gpu" in err.value.prop
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(claim))
    one_coded_line(capsys, ["explain", str(PROD), "--nodes", str(path)], "KG721")


@pytest.mark.parametrize("capacity", ["١", "1 "])
def test_a_node_capacity_kubernetes_cannot_read_is_refused(capacity):
    claim = {"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim", "metadata": {"name": "a"}, "spec": {},
             "status": {"providerID": "aws:///us-east-1a/i-a", "capacity": {"cpu": capacity}}}
    with pytest.raises(KarpenterGpuError) as err:
        cluster_nodes([claim])
    assert err.value.code == "KG721"


# ---------------------------------------------------------------------------------------------
# Duplicate keys


def test_a_duplicate_key_in_aws_json_is_refused_naming_it(tmp_path, capsys):
    path = tmp_path / "spot.json"
    record = ('{"InstanceType": "g5.xlarge", "AvailabilityZone": "us-east-1a", "ProductDescription": "Linux/UNIX", '
              f'"SpotPrice": "0.4", "SpotPrice": "9.9", "Timestamp": "{STAMP}"}}')
    path.write_text('{"SpotPriceHistory": [' + record + "]}")
    with pytest.raises(KarpenterGpuError) as err:
        load_aws_facts([path])
    assert err.value.code == "KG737" and "SpotPrice" in str(err.value)
    one_coded_line(capsys, ["explain", str(ROOT / "dist"), "--aws", str(path)], "KG737")


def test_nan_and_infinity_literals_are_not_json(tmp_path):
    path = tmp_path / "r.json"
    path.write_text('{"CapacityReservations": [{"AvailableInstanceCount": NaN}]}')
    with pytest.raises(KarpenterGpuError) as err:
        load_aws_facts([path])
    assert err.value.code == "KG731"


@pytest.mark.parametrize(("name", "text"), [
    ("cat.json", '{"types": [], "types": []}'),
    ("cat.yaml", "types: []\nsource: a\ntypes: []\n"),
])
def test_a_duplicate_key_in_a_catalog_is_refused(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(KarpenterGpuError) as err:
        load_catalog(path)
    assert err.value.code == "KG703" and "'types'" in str(err.value)


def test_the_reader_used_for_nodes_and_manifests_is_the_bounded_one(tmp_path):
    """read_path goes through read_bounded for a named file too: a file over the bound is KG906 unread."""
    big = tmp_path / "big.yaml"
    with big.open("wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(KarpenterGpuError) as err:
        read_path(big)
    assert err.value.code == "KG906"
