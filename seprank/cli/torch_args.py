"""``--torch MODULE:FACTORY``: measure a torch nn.Module (:func:`seprank.from_torch`).

``seprank measure --torch mymod:make --param seq_len=4 --param width=2`` (or ``certify``,
``bounds``, ``verify``) imports ``mymod``
(from PYTHONPATH), calls ``make()`` for the module and measures it; ``--param position=I``
and ``--param coordinate=C`` choose the output read (default y[:, 0, 0]).
"""

from __future__ import annotations

from seprank.errors import ConfigError
from seprank.nets.base import build
from seprank.nets.torch_module import TorchModule

#: The attention network's flags (measure's own): not parameters of a torch module.
ATTENTION_ONLY = ("depth", "width", "heads", "seq_len", "residual", "query_position",
                  "output_coord")


def add_torch_args(p) -> None:
    p.add_argument("--torch", default=None, metavar="MODULE:FACTORY",
                   help="a torch nn.Module: FACTORY() in MODULE (on PYTHONPATH) returns it; "
                        "with --param seq_len=N --param width=d [--param position=I "
                        "--param coordinate=C]")


def torch_net_from_args(args, default_arch: str):
    """The TorchModule named by ``--torch`` (None without it)."""
    path = getattr(args, "torch", None)
    if path is None:
        return None
    if getattr(args, "arch", None) not in (None, default_arch):
        raise ConfigError(f"--torch {path}: give --torch or --arch, not both")
    stray = [k for k in ATTENTION_ONLY if getattr(args, k, None) not in (None, False)]
    if stray:
        flag = "--" + stray[0].replace("_", "-")
        raise ConfigError(f"{flag}: belongs to --arch attention; for --torch use --param "
                          f"KEY=VALUE (seq_len, width, position, coordinate)")
    return build(TorchModule, [f"factory={path}", *args.param], "--torch")
