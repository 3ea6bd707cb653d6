# %% [markdown]
# # Flows of a capture, by application: wirespeed in a notebook
#
# Cells in the `# %%` format (VS Code, Jupytext, Spyder); `python docs/notebook.py [CAPTURE]`
# runs them all. The capture: the argument, else `$CAPTURE`, else the corpus's `1kxun.pcap`
# beside the checkout, else a demo trace written by `wirespeed gen demo` (the binary on PATH or
# in target/release).

# %%
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path


import wirespeed

repo = Path(__file__).resolve().parents[1] if "__file__" in globals() else Path.cwd()
capture = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CAPTURE")
if not capture:
    corpus_file = repo.parent / "shared" / "corpus" / "pcap" / "1kxun.pcap"
    if corpus_file.exists():
        capture = str(corpus_file)
    else:
        binary = shutil.which("wirespeed") or str(repo / "target" / "release" / "wirespeed")
        capture = os.path.join(tempfile.mkdtemp(), "demo.pcap")
        subprocess.run([binary, "gen", "demo", "-o", capture], check=True)
print("capture:", capture)

# %% [markdown]
# ## wirespeed's own table: one row per flow, as a DataFrame

# %%
with warnings.catch_warnings():
    warnings.simplefilter("ignore", wirespeed.CaptureWarning)  # a damaged capture: good packets kept
    table = wirespeed.classify(capture)
df = table.to_pandas()
df["packets"] = df.c2s_pkts + df.s2c_pkts
df["bytes"] = df.c2s_bytes + df.s2c_bytes
print(df[["src_ip", "src_port", "dst_ip", "dst_port", "l4", "proto", "method", "packets"]].head(10))

# %% [markdown]
# ## Traffic by application

# %%
by_app = (
    df.groupby("app", observed=True)
    .agg(flows=("flow_id", "size"), packets=("packets", "sum"), bytes=("bytes", "sum"))
    .sort_values("bytes", ascending=False)
)
print(by_app.head(15))

# %% [markdown]
# ## The same with nfstream's columns
#
# A notebook written for nfstream changes one line, `from nfstream import NFStreamer` to:

# %%
from wirespeed.nfstream import NFStreamer  # noqa: E402

nf = NFStreamer(source=capture, statistical_analysis=True).to_pandas()
print(nf[["src_ip", "dst_ip", "application_name", "bidirectional_packets", "bidirectional_mean_ps"]].head(10))
by_name = (
    nf.groupby("application_name")
    .agg(flows=("id", "size"), packets=("bidirectional_packets", "sum"), bytes=("bidirectional_bytes", "sum"))
    .sort_values("bytes", ascending=False)
)
print(by_name.head(15))

# %% [markdown]
# nfstream's rows are wirespeed's records under nfstream's timeouts (idle 120 s, active 1800 s;
# docs/NFSTREAM.md): the same rows and packets as `classify` with those timeouts.

# %%
with warnings.catch_warnings():
    warnings.simplefilter("ignore", wirespeed.CaptureWarning)
    same = wirespeed.classify(capture, tcp_timeout=120, udp_timeout=120, other_timeout=120,
                              closed_timeout=120, active_timeout=1800).to_pandas()
total = int((same.c2s_pkts + same.s2c_pkts)[same.end_reason != "active"].sum())
assert int(nf.bidirectional_packets.sum()) == total, (int(nf.bidirectional_packets.sum()), total)
assert len(nf) == len(same)
print("same rows and packets:", len(nf), total)
