"""One replacement of the output, step by step: the target checked, the lock taken, what killed runs left
recovered (:func:`replacing`); a staging folder beside the output to build the new one in, its marker written and
the output exchanged for it, the old output removed against its marker (:class:`Staging`)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from karpenter_gpu._fs import os_error, printable
from karpenter_gpu.errors import KarpenterGpuError
from karpenter_gpu.output import remove
from karpenter_gpu.output.files import folder_id, here, what_is
from karpenter_gpu.output.install import install as install_output
from karpenter_gpu.output.lock import locked
from karpenter_gpu.output.marker import MARKER, PROOF, write_marker
from karpenter_gpu.output.recover import recover
from karpenter_gpu.output.refusals import names, replaced, swapped_staging
from karpenter_gpu.output.target import check_path, check_target


@contextlib.contextmanager
def replacing(out: Path, outdir: str, lock_timeout: float | None = None) -> Iterator[None]:
    """Hold the output ``out`` (absolute; ``outdir`` as the caller gave it) for one replacement: refused when it
    is a file, a link or the current folder (KG803), its parent made, the lock taken for the whole block (KG807
    after ``lock_timeout`` seconds), what killed runs left recovered, and its contents checked (KG804-KG806)."""
    check_path(out, outdir)
    out.parent.mkdir(parents=True, exist_ok=True)
    with locked(out, lock_timeout):
        recover(out)
        check_target(out)
        yield


class Staging:
    """The private folder ``.<name>.staging-<pid>-<token>`` beside the output ``out`` in which one run builds the
    new output (:attr:`path`), made with its proof; then either :meth:`install`-ed or :meth:`abandon`-ed.

    Made under :func:`replacing`, after the checks: the output must still be the real folder checked (else KG803).
    """

    def __init__(self, out: Path) -> None:
        self.out = out
        found = here(out)
        #: The output's identity when the run began (None: absent).
        self.before = folder_id(found)
        if found is not None and self.before is None:  # replaced since the target was checked
            raise replaced(out, what_is(out, found))
        self.path = remove.own_dir(out.parent, f".{out.name}.staging")
        #: The staging folder's identity: only that folder is ever written into, installed or removed.
        self.ours = folder_id(here(self.path))

    def abandon(self) -> None:
        """Remove the staging folder, only while it is still the folder this run made; a fault doing so is not
        raised (the first fault is the one to report)."""
        with contextlib.suppress(OSError):
            remove.remove_own(self.path, self.ours)

    def install(self) -> None:
        """Write the marker, put the new output in place of the old (nothing installed when either changed: KG803,
        KG805, KG810) and remove the old output against its marker; what it does not list is kept in
        ``.<name>.kept-*`` and reported with KG805 once the new output is installed."""
        try:
            if folder_id(here(self.path)) != self.ours:  # no marker written through what replaced it
                raise swapped_staging(self.path)
            write_marker(self.path)
            os.unlink(self.path / PROOF)  # the marker proves it from here on; the output holds no proof file
            how = install_output(self.path, self.out, (self.before, self.ours))
        except BaseException:
            self.abandon()
            raise
        try:
            self._clean_up(how)
        except OSError as ex:
            raise os_error(ex, f"the new output is installed in {self.out}; removing the previous one, kept in "
                               f"{self.path},") from ex

    def _clean_up(self, how: str) -> None:
        if how == "in-place":
            remove.remove_own(self.path, self.ours)  # its files were copied into the output
        elif how == "exchanged" and self.before is not None:
            kept = remove.discard_old(self.path, self.out, self.before)  # it holds the old output
            if kept is not None:
                raise KarpenterGpuError(
                    "KG805", prop="outdir", value=str(self.out),
                    allowed=f"a previous synth output holding only what its {MARKER} lists; "
                            f"{names(kept[1])} not listed there (added while synth ran): kept, not deleted, in "
                            f"{printable(str(kept[0]))}; the new output is installed in {self.out.name}/",
                    fix=f"move what you need out of {printable(str(kept[0]))} (synth never removes it), then delete "
                        "that folder yourself; do not write into the output folder while synth runs")
