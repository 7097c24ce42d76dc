"""What an apply or a patch changes in a connector's config: keys added, changed and removed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class ConfigDiff:
    """The difference from an old config to a new one, each part in key order."""

    added: dict[str, str]
    changed: dict[str, tuple[str, str]]
    removed: dict[str, str]

    @property
    def unchanged(self) -> bool:
        """Whether the two configs are equal."""
        return not (self.added or self.changed or self.removed)

    def lines(self) -> list[str]:
        """One line per key, in key order: ``+ key=new``, ``~ key: old -> new``, ``- key=old``."""
        keys = sorted({*self.added, *self.changed, *self.removed})
        out: list[str] = []
        for key in keys:
            if key in self.added:
                out.append(f"+ {key}={self.added[key]}")
            elif key in self.changed:
                old, new = self.changed[key]
                out.append(f"~ {key}: {old} -> {new}")
            else:
                out.append(f"- {key}={self.removed[key]}")
        return out


def diff_configs(old: Mapping[str, str], new: Mapping[str, str]) -> ConfigDiff:
    """The keys `new` adds to `old`, the ones whose value it changes, and the ones it drops."""
    return ConfigDiff(
        added={k: new[k] for k in sorted(new) if k not in old},
        changed={k: (old[k], new[k]) for k in sorted(new) if k in old and old[k] != new[k]},
        removed={k: old[k] for k in sorted(old) if k not in new},
    )
