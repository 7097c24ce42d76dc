"""Loading the plugin, as every worker and Spark task process does, imports no REST library; its
files ship in the package."""

from __future__ import annotations

import subprocess
import sys

from kconnect_dashboard.routes import STATIC


def test_the_entry_point_imports_no_rest_library() -> None:
    probe = (
        "import sys, kconnect_dashboard.plugin\n"
        "print(sorted(m for m in ('litestar', 'kconnect_rest') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_page_and_its_assets_are_package_files_and_load_nothing_from_elsewhere() -> None:
    assert {p.name for p in STATIC.iterdir()} >= {"index.html", "dashboard.js", "dashboard.css"}
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    assert "http://" not in page and "https://" not in page  # no CDN
    script = (STATIC / "dashboard.js").read_text(encoding="utf-8")
    assert "innerHTML" not in script  # text from the API is set as text only
