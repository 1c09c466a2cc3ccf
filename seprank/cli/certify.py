"""``seprank certify`` and ``seprank check-certificate``: theorems with checkable certificates."""

from __future__ import annotations

import json
import sys

from seprank.cli._common import (
    _add_net_args,
    _byte_size,
    _int_list,
    add_output_args,
    add_param,
    nonneg_int,
    real_arg,
)
from seprank.cli.archs import add_arch_args, net_from_args
from seprank.engine.parameters import default
from seprank.errors import ConfigError
from seprank.nets.registry import (
    allows,
    file_imports,
    import_path,
    label_of,
    own_classes,
    refusal,
    resolve,
)
from seprank.nets.torch_module import TorchModule
from seprank.paths import check_out_dir
from seprank.verdicts import certificate_schema, certificates
from seprank.verdicts.certificate_schema import Budget

CERTIFY_EPILOG = """\
status "exact, proved": the certified lower bound (nonsingular minors over GF(p)) meets
the architecture's proved upper bound (seprank bounds --arch NAME prints it): a theorem,
no probability involved. With --upper U: "exact, given the stated bound (SOURCE)" when
the rank meets U. Otherwise "lower bound" with the gap, and the ground of the saturation
label (a Schwartz-Zippel bound) if any.
The certificate (JSON) is re-checked, without trusting the measurement, by
  seprank check-certificate FILE      (exit 0: valid, 1: false, 2: unreadable/malformed)
(with --arch module:Class, or --torch MODULE:FACTORY, for a certificate naming one: the
re-check line printed says which; seprank check-certificate --help gives the rule)
exit codes: 0 done, 1 --check found the certificate invalid, 2 bad input."""

CHECK_EPILOG = """\
A certificate is data: checking it never imports a module it names on its own word
(importing runs the module's code). A registry architecture (seprank archs), seprank's
own classes and an installed package's entry point need nothing. A certificate naming
module:Class is checked only with your word: --arch module:Class (the same), or
--allow-import; a torch certificate (TorchModule, config factory=MODULE:FACTORY) with
--torch MODULE:FACTORY (the same) or --allow-import. Without it: exit 2, one line naming
the module, nothing imported.
exit codes: 0 valid, 1 false (INVALID, with the reasons), 2 unreadable or malformed, a
module not allowed or not importable, an --arch/--torch other than the certificate's, or a
check whose cost, estimated from the claimed sizes before anything is built, is over
--max-memory or --max-seconds."""


def add_parsers(sub) -> None:
    c = sub.add_parser("certify", help="exact separation rank as a theorem, with a certificate",
                       epilog=CERTIFY_EPILOG)
    add_arch_args(c)
    _add_net_args(c, need=False)
    c.add_argument("--output-coord", type=int, default=None,
                   help="coordinate of y^{L,i} studied (attention; default 0)")
    c.add_argument("--upper", type=nonneg_int, default=None, metavar="U",
                   help="an upper bound you state (proved elsewhere) instead of the "
                        "architecture's own; the verdict then says 'given the stated bound'")
    c.add_argument("--upper-source", default=None, metavar="TEXT",
                   help="where the --upper bound is proved (recorded in the certificate)")
    c.add_argument("--partition", type=_int_list, default=None,
                   help="A-side positions, e.g. 0,1 (default: the first N//2)")
    add_param(c, "seed")
    add_param(c, "prime", help=f"modulus (default: {default('prime', 'modular')}, below 2**26)")
    add_param(c, "max_samples", help="budget per grid matrix")
    c.add_argument("--out", default="seprank-certificates",
                   help="folder the certificate is written to")
    c.add_argument("--check", action="store_true",
                   help="also run check-certificate on the written certificate")
    add_output_args(c, quiet_help="no progress lines")

    k = sub.add_parser("check-certificate",
                       help="re-derive a certificate's minors from its seeds and check their "
                            "determinants over GF(p) with python-flint (exit 0 valid / 1 false); "
                            "imports no module the file names without your word",
                       epilog=CHECK_EPILOG)
    k.add_argument("file", help="certificate JSON written by seprank certify")
    k.add_argument("--arch", default=None, metavar="NAME|module:Class",
                   help="the certificate's architecture, in your own words: with a "
                        "module:Class, your permission to import that module (it must be "
                        "the one the certificate names)")
    k.add_argument("--torch", default=None, metavar="MODULE:FACTORY",
                   help="a torch certificate's factory, in your own words: your permission "
                        "to import MODULE (it must be the factory the certificate names)")
    k.add_argument("--allow-import", action="store_true",
                   help="import whatever module the certificate names (it runs that "
                        "module's code: only for a certificate you trust)")
    k.add_argument("--kernel", action="store_true",
                   help="evaluate the network with the compiled kernel of the measurement "
                        "(faster for deep networks) instead of its reference numpy code; "
                        "the determinants are python-flint's either way")
    k.add_argument("--max-memory", type=_byte_size, default=Budget.bytes, metavar="SIZE",
                   help="memory the check may take, e.g. 8GiB: a certificate whose claimed "
                        "sizes need more (estimated before anything is built) is refused, "
                        "exit 2 (default 2GiB)")
    k.add_argument("--max-seconds", type=real_arg(1.0, 10.0**7), default=Budget.seconds,
                   metavar="S", help="the check's time budget S: a certificate whose claimed "
                   "minors are estimated to need longer is refused, exit 2, before any is "
                   "built (default 600)")
    add_output_args(k, quiet_help="no notes on stderr (the INVALID reasons are still "
                    "printed there: they are the result)")


def cmd_certify(args) -> int:
    if args.upper_source is not None and args.upper is None:
        raise ConfigError("--upper-source needs --upper U (the bound it is the source of)")
    net = net_from_args(args)
    out = check_out_dir(args.out)
    progress = None if (args.quiet or args.json) else True
    stated = {} if args.upper is None else {"upper": args.upper,
                                            "upper_source": args.upper_source}
    c = certificates.certify(net, args.partition, seed=args.seed, prime=args.prime,
                             max_samples=args.max_samples, progress=progress,
                             **stated)
    if c.certificate is not None:
        c.write(out)
    checked = None
    if args.check and c.path:
        # written just now from your own --arch: whatever it names is your word
        checked = certificates.check_certificate(c.path, cls=type(net), allow_import=True)
    if args.json:
        d = c.to_dict()
        if checked is not None:
            d["check"] = {"ok": checked.ok, "reasons": checked.reasons}
        print(json.dumps(d))
    else:
        which = {"user": "stated", "recalled": "recalled", "architecture":
                 "the architecture's stated"}.get(getattr(c, "upper_status", None) or "",
                                                  "stated" if c.upper_given else "proved")
        up = "no upper bound known" if c.upper is None else f"{which} upper bound {c.upper}"
        print(f"separation rank: {c.lower}  [{c.status}]" if c.exact else
              f"separation rank >= {c.lower}  [{c.status}; {up}"
              + (f", gap {c.gap}]" if c.gap is not None and c.gap >= 0 else
                 "]: the certified rank EXCEEDS it, so that bound is false" if c.gap is not None
                 else "]"))
        print(f"  ground: {c.ground}")
        print(f"  upper bound: {c.upper_why}")
        if c.path:
            print(f"  certificate: {c.path}")
            print(f"  re-check:    seprank check-certificate {c.path}"
                  f"{recheck_flags(c.certificate)}")
        else:
            print("  no certificate: no nonsingular minor was recorded")
        if checked is not None:
            verdict = "valid" if checked.ok else "INVALID: " + "; ".join(checked.reasons)
            print(f"  check: {verdict}")
    return 1 if checked is not None and not checked.ok else 0


#: The check-certificate flag that gives permission for each kind of import a file names.
FLAGS = {"architecture": "--arch", "factory": "--torch"}


def recheck_flags(cert: dict) -> str:
    """The flags check-certificate needs for ``cert`` (your word for each module it names:
    ``" --arch mymod:MyNet"``; ``""`` for a registry architecture)."""
    return "".join(f" {FLAGS.get(what, '--arch')} {path}"
                   for what, path in file_imports(cert["architecture"], cert["config"]))


def _permission(args, cert: dict) -> dict:
    """``cls`` and ``allow_import`` for check_certificate from --arch, --torch and
    --allow-import (the user's words); ConfigError, in the command line's terms, for a
    module the certificate names that none of them allows, or one that differs."""
    name, config = cert["architecture"], cert["config"]
    if args.arch is not None and args.torch is not None:
        raise ConfigError("--arch and --torch: give one (a torch certificate: --torch)")
    cls, allow = None, bool(args.allow_import)
    if args.arch is not None:
        cls = resolve(args.arch)  # your word: imported as for measure --arch
        if name not in (args.arch.strip(), label_of(cls), import_path(cls)):
            raise ConfigError(f"--arch {args.arch}: the certificate names architecture "
                              f"{name!r}; give that one (or leave --arch out)")
    if args.torch is not None:
        factory = config.get("factory")
        if own_classes().get(name) is not TorchModule:
            raise ConfigError(f"--torch {args.torch}: the certificate is not a torch one "
                              f"(architecture {name!r}); leave --torch out")
        if factory != args.torch:
            raise ConfigError(f"--torch {args.torch}: the certificate names factory "
                              f"{factory!r}; give that one (or leave --torch out)")
        allow = allow or (args.torch,)
    for what, path in file_imports(name, config, cls):
        if not allows(allow, path):
            raise refusal(what, path, f"{args.file}: the certificate",
                          f"if you trust it, give {FLAGS.get(what, '--arch')} {path} (or "
                          "--allow-import)")
    return {"cls": cls, "allow_import": allow}


def cmd_check(args) -> int:
    budget = Budget(bytes=args.max_memory, seconds=args.max_seconds)
    # unreadable, malformed or over the budget: exit 2, one line, before anything is built
    cert = certificate_schema.load(args.file, budget)
    r = certificates.check_certificate(args.file, kernel=args.kernel, budget=budget,
                                       **_permission(args, cert))
    if r.malformed:  # not a verdict on its claims: one line, exit 2
        raise ConfigError(f"{args.file}: {r.reasons[0]}")
    if args.json:
        print(json.dumps({"ok": r.ok, "exact": r.exact, "rank": r.rank, "status": r.status,
                          "reasons": r.reasons}))
    elif r.ok:
        what = ("a lower bound" if not r.exact else r.status if r.status != "exact, proved"
                else "exact, proved (meets the proved upper bound)")
        print(f"valid: separation rank {'=' if r.exact else '>='} {r.rank}; {what}")
    else:
        print("INVALID certificate:", file=sys.stderr)
        for why in r.reasons:
            print(f"  {why}", file=sys.stderr)
    return 0 if r.ok else 1


COMMANDS = {"certify": cmd_certify, "check-certificate": cmd_check}
