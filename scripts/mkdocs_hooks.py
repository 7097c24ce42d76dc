"""MkDocs hooks (mkdocs.yml ``hooks:``): images the docs show from outside docs/.

A page may show a chart a benchmark writes into the repository (``benchmarks/results/*.png``,
linked as ``../benchmarks/results/x.png`` so GitHub renders it in place). MkDocs only serves files
under ``docs_dir``, so those folders' images are added to the site under ``_repo/`` and the links
to them are rewritten to point there: one copy of each chart, shown in both places.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

REPO_ASSET_DIRS = ("benchmarks/results",)
"""Repository folders (from the root) whose images pages may show."""

SITE_PREFIX = "_repo"
"""Where those images are served in the site."""

IMAGE_SUFFIXES = frozenset({".png", ".svg", ".jpg", ".jpeg", ".gif"})

_LINK = re.compile(r"(\]\()([^)\s]+)")


def _repo_root(config: Any) -> Path:
    return Path(config["docs_dir"]).resolve().parent


def on_files(files: Files, config: Any) -> Files:
    """Add each image of `REPO_ASSET_DIRS` as a site file under `SITE_PREFIX`; called once per build."""
    root = _repo_root(config)
    for folder in REPO_ASSET_DIRS:
        for path in sorted((root / folder).glob("*")):
            if path.suffix.lower() in IMAGE_SUFFIXES:
                uri = f"{SITE_PREFIX}/{folder}/{path.name}"
                files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Point a page's links into `REPO_ASSET_DIRS` at their copy in the site; called once per page."""
    page_dir = posixpath.dirname(page.file.src_uri)

    def rewrite(match: re.Match[str]) -> str:
        target = match.group(2)
        from_root = posixpath.normpath(posixpath.join("docs", page_dir, target))
        if posixpath.dirname(from_root) not in REPO_ASSET_DIRS:
            return match.group(0)
        served = posixpath.join(SITE_PREFIX, from_root)
        return match.group(1) + posixpath.relpath(served, page_dir or ".")

    return _LINK.sub(rewrite, markdown)
