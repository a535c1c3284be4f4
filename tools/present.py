"""`make present`: the teacher's view (Voila) locked down like `make lab`: a token, Host and Origin checks,
127.0.0.1 only, and a cap on live kernels.

    python tools/present.py NOTEBOOK [--kernels N] [Voila options...]

Plain Voila serves without a token and with Jupyter's Host check switched off (it sets
`allow_remote_access`), so any page that reaches 127.0.0.1 (a DNS-rebinding site, another user of the
machine) could start kernels, one per request, without limit. Here:
- a token is generated and printed in the URL (`?token=...`, as `make lab` does); a request without it gets
  the login form (HTML) or 403 (the API), never a kernel;
- `allow_remote_access` is off again, so a `Host:` other than localhost or a loopback address is refused
  (403), and a cross-origin request or websocket (an `Origin` that is not the page's own) is refused;
- each page load starts one kernel; once `--kernels` of them are alive (default 4; closed pages are culled
  after 5 idle minutes, tools/voila/voila.json) a new page load gets 503 and a plain message instead of one
  more ~120 MB kernel.
"""
from __future__ import annotations

import argparse
import sys

MAX_KERNELS = 4
TEMPLATE = "attention-lab-teacher"
LOCAL_HOSTNAMES = ["localhost"]           # loopback IP addresses are always accepted by Jupyter's check


def kernel_cap(limit: int):
    """Voila's prelaunch hook: refuse a new kernel while `limit` kernels are alive."""
    def hook(req, notebook, cwd):
        from tornado.web import HTTPError
        running = len(req.kernel_manager.list_kernel_ids())
        if running >= limit:
            raise HTTPError(503, reason=f"{running} kernels are running (the limit of make present is {limit}); "
                                        "close a page of the teacher's view or wait for its kernel to be culled")
        return notebook
    return hook


def voila_config(limit: int = MAX_KERNELS):
    """The settings that make Voila as strict as `make lab` (see the module docstring)."""
    from traitlets.config import Config
    c = Config()
    c.Voila.ip = "127.0.0.1"
    c.Voila.auto_token = True                    # generated; Voila prints the URL with it
    c.Voila.open_browser = False
    # Voila sets allow_remote_access=True (no Host check); tornado_settings are applied after its own.
    c.Voila.tornado_settings = {"allow_remote_access": False, "local_hostnames": LOCAL_HOSTNAMES,
                                "allow_origin": "", "allow_origin_pat": None}
    c.VoilaConfiguration.prelaunch_hook = kernel_cap(limit)
    return c


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebook", help="the notebook to present")
    ap.add_argument("--kernels", type=int, default=MAX_KERNELS, help=f"live kernels at most (default {MAX_KERNELS})")
    args, voila_args = ap.parse_known_args(argv)
    if args.kernels < 1:
        ap.error(f"--kernels: expected an integer >= 1, got {args.kernels}")
    return args, voila_args


def main(argv=None) -> int:
    args, voila_args = parse(sys.argv[1:] if argv is None else argv)
    from voila.app import Voila
    # The template on the command line: it beats the `attention-lab` of voila.json (config files beat `config=`).
    Voila.launch_instance(argv=[args.notebook, f"--template={TEMPLATE}", *voila_args],
                          config=voila_config(args.kernels))
    return 0


if __name__ == "__main__":
    sys.exit(main())
