"""``kconnectctl completion bash|zsh``: a completion script made from the parser itself.

The script completes verbs, resources and options from a table of the grammar's paths (so it
cannot drift from the parser), connector names by asking the cluster (``get connectors -o name``,
with the ``--cluster``/``--context`` typed so far), context names from the context file, and file
names after ``-f`` and the TLS options. zsh runs the bash script through ``bashcompinit``.
"""

from __future__ import annotations

import argparse
import shlex
from dataclasses import dataclass, field

from kconnect_ctl.errors import EXIT_OK

#: Positional arguments completed with connector names.
_CONNECTOR_ARGS = {"name", "names"}
#: Options followed by a file name.
_FILE_OPTIONS = {"-f", "--file", "--ca-cert", "--client-cert", "--client-key"}


@dataclass
class Grammar:
    """What the script needs of the parser: the words after each path of verbs, each path's
    options, the paths that take connector names or context names, and the options with a value."""

    words: dict[str, list[str]] = field(default_factory=dict)
    options: dict[str, list[str]] = field(default_factory=dict)
    connector_paths: list[str] = field(default_factory=list)
    context_paths: list[str] = field(default_factory=list)
    value_options: set[str] = field(default_factory=set)
    choices: dict[str, list[str]] = field(default_factory=dict)


def grammar(parser: argparse.ArgumentParser, path: str = "", into: Grammar | None = None) -> Grammar:
    """Walk `parser` and its subparsers (argparse has no public API for this: ``_actions``)."""
    found = into or Grammar()
    found.options[path] = []
    for action in parser._actions:
        if action.option_strings:
            found.options[path] += action.option_strings
            if action.nargs != 0:
                found.value_options.update(action.option_strings)
                if action.choices:
                    for option in action.option_strings:
                        found.choices.setdefault(option, [])
                        found.choices[option] += [c for c in action.choices if c not in found.choices[option]]
        elif isinstance(action, argparse._SubParsersAction):
            found.words[path] = list(action.choices)
            for name, sub in action.choices.items():
                grammar(sub, f"{path} {name}".strip(), found)
        elif action.dest in _CONNECTOR_ARGS:
            found.connector_paths.append(path)
        elif action.dest == "context_name":
            found.context_paths.append(path)
        elif action.choices:
            found.words[path] = [str(c) for c in action.choices]
    return found


def _pattern(path: str) -> str:
    """`path` as a bash ``case`` pattern matching it exactly (``""`` for no verb yet)."""
    return shlex.quote(path) if path else '""'


def bash_script(parser: argparse.ArgumentParser) -> str:
    """The bash completion script for `parser`'s program."""
    g = grammar(parser)
    prog = parser.prog
    fn = "_" + prog.replace("-", "_")
    cases = []
    for path, words in g.words.items():
        cases.append(f"        {_pattern(path)}) words={shlex.quote(' '.join(words))} ;;")
    for path in g.connector_paths:
        cases.append(
            f"        {shlex.quote(path)}|{shlex.quote(path + ' ')}*) "
            f'words="$({prog} "${{globals[@]}}" get connectors -o name 2>/dev/null)" ;;'
        )
    for path in g.context_paths:
        cases.append(
            f'        {shlex.quote(path)}) words="$({prog} config get-contexts -o name 2>/dev/null)" ;;'
        )
    option_cases = [
        f"        {_pattern(path)}) words={shlex.quote(' '.join(options))} ;;"
        for path, options in g.options.items()
    ]
    choice_cases = [
        f'        {o}) COMPREPLY=($(compgen -W {shlex.quote(" ".join(c))} -- "$cur")); return ;;'
        for o, c in g.choices.items()
    ]
    return f"""# {prog} completion for bash: eval "$({prog} completion bash)"
{fn}() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    local path="" word words="" skip="" i
    local -a globals=()
    for ((i = 1; i < COMP_CWORD; i++)); do
        word="${{COMP_WORDS[i]}}"
        if [[ -n "$skip" ]]; then
            [[ "$skip" == --cluster || "$skip" == --context ]] && globals+=("$skip" "$word")
            skip=""
            continue
        fi
        case "$word" in
            {"|".join(sorted(g.value_options))}) skip="$word"; continue ;;
            -*) continue ;;
        esac
        path="${{path:+$path }}$word"
    done
    case "$prev" in
        {"|".join(sorted(_FILE_OPTIONS))}) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --context) words="$({prog} config get-contexts -o name 2>/dev/null)"
            COMPREPLY=($(compgen -W "$words" -- "$cur")); return ;;
{chr(10).join(choice_cases)}
    esac
    if [[ "$cur" == -* ]]; then
        case "$path" in
{chr(10).join(option_cases)}
        esac
    else
        case "$path" in
{chr(10).join(cases)}
        esac
    fi
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
}}
complete -F {fn} {prog}
"""


def zsh_script(parser: argparse.ArgumentParser) -> str:
    """The zsh completion script: the bash one under ``bashcompinit``."""
    return (
        f'# {parser.prog} completion for zsh: eval "$({parser.prog} completion zsh)" (after compinit)\n'
        "autoload -U +X bashcompinit && bashcompinit\n" + bash_script(parser)
    )


def completion(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """Print the script for ``args.shell``."""
    print(zsh_script(parser) if args.shell == "zsh" else bash_script(parser), end="")
    return EXIT_OK
