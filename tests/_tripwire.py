"""Modules that leave a mark when imported (their top-level code writes a file): the tests
that reading a file someone sent (a certificate, a store, a CSV) runs no code it names."""

import sys
import textwrap
from pathlib import Path

from _user_module import SOURCE

#: A torch factory ``make()``: y[:, 0, 0] = w . (x_0 * x_1), separation rank <= width.
TORCH_SOURCE = textwrap.dedent('''
    import torch
    from torch import nn


    class Product(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(2))

        def forward(self, x):
            y = (x[:, :1, :] * x[:, 1:, :] * self.w).sum(-1, keepdim=True)
            return y.expand(-1, 2, 1)


    def make():
        return Product()
''')


def tripwire(folder: Path, marks: Path, name: str = "tripmod", source: str = SOURCE) -> Path:
    """Write the module ``name`` into ``folder``: importing it writes ``marks/name.ran``
    (returned, not yet there), then defines what ``source`` does (by default the user
    architectures MyNet and MyPlain of ``_user_module``). The module is forgotten."""
    marks.mkdir(parents=True, exist_ok=True)
    mark = marks / f"{name}.ran"
    head = f"import pathlib\npathlib.Path({str(mark)!r}).write_text('imported')\n"
    (folder / f"{name}.py").write_text(head + source)
    forget(name, mark)
    return mark


def forget(name: str, mark: Path) -> None:
    """The module out of ``sys.modules`` and its mark removed: as if never imported."""
    sys.modules.pop(name, None)
    mark.unlink(missing_ok=True)
