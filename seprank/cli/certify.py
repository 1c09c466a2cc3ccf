"""``seprank certify`` and ``seprank check-certificate``: theorems with checkable certificates."""

from __future__ import annotations

import json
import sys

from seprank.cli._common import _add_net_args, _int_list, nonneg_int, prime_arg, sample_count
from seprank.engine.feasibility import check_feasible, check_prime
from seprank.engine.sample_grid import available_memory
from seprank.nets import LinearSelfAttention
from seprank.paths import check_out_dir
from seprank.verdicts import certificate_schema, certificates

CERTIFY_EPILOG = """\
status "exact, proved": the certified lower bound (nonsingular minors over GF(p)) meets
the proved upper bound: a theorem, no probability involved. Otherwise "lower bound" with
the gap, and the ground of the saturation label (a Schwartz-Zippel bound) if any.
The certificate (JSON) is re-checked, without trusting the measurement, by
  seprank check-certificate FILE      (exit 0: valid, 1: false, 2: unreadable/malformed)
exit codes: 0 done, 1 --check found the certificate invalid, 2 bad input."""


def add_parsers(sub) -> None:
    c = sub.add_parser("certify", help="exact separation rank as a theorem, with a certificate",
                       epilog=CERTIFY_EPILOG)  # fmt: skip
    _add_net_args(c)
    c.add_argument("--partition", type=_int_list, default=None,
                   help="A-side positions, e.g. 0,1 (default: the first N//2)")
    c.add_argument("--seed", type=nonneg_int, default=0, help="weights and sample points")
    c.add_argument("--prime", type=prime_arg, default=None,
                   help="modulus (default: 67108859, below 2**26)")
    c.add_argument("--max-samples", type=sample_count, default=None, help="budget per grid matrix")
    c.add_argument("--out", default="seprank-certificates",
                   help="folder the certificate is written to")
    c.add_argument("--check", action="store_true",
                   help="also run check-certificate on the written certificate")
    c.add_argument("--json", action="store_true", help="print one JSON object")
    c.add_argument("--quiet", action="store_true", help="no progress lines")

    k = sub.add_parser("check-certificate",
                       help="re-derive a certificate's minors from its seeds and check their "
                            "determinants over GF(p) with python-flint (exit 0 / 1)")
    k.add_argument("file", help="certificate JSON written by seprank certify")
    k.add_argument("--kernel", action="store_true",
                   help="evaluate the network with the compiled kernel of the measurement "
                        "(faster for deep networks) instead of its reference numpy code; "
                        "the determinants are python-flint's either way")  # fmt: skip
    k.add_argument("--json", action="store_true", help="print one JSON object")


def cmd_certify(args) -> int:
    net = LinearSelfAttention(depth=args.depth, width=args.width, heads=args.heads,
                              seq_len=args.seq_len, residual=args.residual,
                              query_position=args.query_position)  # fmt: skip
    if args.prime is not None:
        check_feasible(net, 16, available_memory() // 4, args.max_samples)  # before degrees
        check_prime(net, args.prime)  # what the computation needs, stated
    out = check_out_dir(args.out)
    progress = None if (args.quiet or args.json) else True
    c = certificates.certify(net, args.partition, seed=args.seed, prime=args.prime,
                             max_samples=args.max_samples, progress=progress)  # fmt: skip
    if c.certificate is not None:
        c.write(out)
    checked = None
    if args.check and c.path:
        checked = certificates.check_certificate(c.path)
    if args.json:
        d = c.to_dict()
        if checked is not None:
            d["check"] = {"ok": checked.ok, "reasons": checked.reasons}
        print(json.dumps(d))
    else:
        up = "none proved" if c.upper is None else str(c.upper)
        print(f"separation rank: {c.lower}  [{c.status}]" if c.exact else
              f"separation rank >= {c.lower}  [{c.status}; proved upper bound {up}"
              + (f", gap {c.gap}]" if c.gap is not None else "]"))
        print(f"  ground: {c.ground}")
        print(f"  upper bound: {c.upper_why}")
        if c.path:
            print(f"  certificate: {c.path}")
            print(f"  re-check:    seprank check-certificate {c.path}")
        else:
            print("  no certificate: no nonsingular minor was recorded")
        if checked is not None:
            verdict = "valid" if checked.ok else "INVALID: " + "; ".join(checked.reasons)
            print(f"  check: {verdict}")
    return 1 if checked is not None and not checked.ok else 0


def cmd_check(args) -> int:
    certificate_schema.load(args.file)  # unreadable or malformed: exit 2, one line
    r = certificates.check_certificate(args.file, kernel=args.kernel)
    if args.json:
        print(json.dumps({"ok": r.ok, "exact": r.exact, "rank": r.rank, "reasons": r.reasons}))
    elif r.ok:
        what = "exact, proved (meets the proved upper bound)" if r.exact else "a lower bound"
        print(f"valid: separation rank {'=' if r.exact else '>='} {r.rank}; {what}")
    else:
        print("INVALID certificate:", file=sys.stderr)
        for why in r.reasons:
            print(f"  {why}", file=sys.stderr)
    return 0 if r.ok else 1


COMMANDS = {"certify": cmd_certify, "check-certificate": cmd_check}
