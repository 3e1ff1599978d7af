"""Format the C++/CUDA and Python templates with the generated projects' own style files.

    python scripts/format_templates.py          # rewrite the templates in place
    python scripts/format_templates.py --check  # list the templates that would change

A template is not C++ or Python until rendered, so each is turned into code first: every
`{{ expression }}` becomes a placeholder identifier as long as a long name, every `{% ... %}`
line a comment. The result is formatted with clang-format (templates/project/.clang-format) or
ruff (the [tool.ruff] tables of templates/project/pyproject.toml.jinja), and the Jinja is put
back. Formatting with long placeholders makes ruff wrap every line a long name would push
past the limit; each call it wraps with all its arguments on one line is then split one
argument per line with a trailing comma, which ruff keeps as it is whatever the names, so
short names do not join it back. The tests check the rendered output for short, default and
long names alike.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from kernelgen.options import MAX_NAME_LENGTH  # noqa: E402  (the checkout's, installed or not)

TEMPLATE_DIRS = (REPO / "templates", REPO / "reference_kernels")
CPP_SUFFIXES = (".cpp.jinja", ".h.jinja", ".cu.jinja", ".cuh.jinja")
PLACEHOLDER_LENGTH = MAX_NAME_LENGTH  # the longest name: what fits with it fits with any shorter
EXPRESSION = re.compile(r"\{\{.*?\}\}")
STATEMENT_LINE = re.compile(r"^[ \t]*\{%.*%\}[ \t]*$", re.MULTILINE)
EXPRESSION_LINE = re.compile(r"^([ \t]*)(\{\{.*?\}\})[ \t]*$", re.MULTILINE)


def _tool(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        sys.exit(f"{name} not found: pip install -e '.[test]'")
    return found


def to_code(template: str, comment: str) -> tuple[str, dict[str, str], dict[str, int]]:
    """The template as plain code, each placeholder's Jinja text, and how many blank lines
    stood before each statement line (a formatter would add some before a comment)."""
    jinja: dict[str, str] = {}
    blank_lines_before: dict[str, int] = {}

    def hide(match: re.Match[str], kind: str) -> str:
        key = f"KG{kind}{len(jinja):04d}"
        key = key.ljust(PLACEHOLDER_LENGTH, "x") if kind == "E" else key
        jinja[key] = match.group(0)
        if kind == "S":
            before = template[: match.start()]
            blank_lines_before[key] = len(before) - len(before.rstrip("\n")) - 1 if before else 0
        return key if kind == "E" else f"{comment} {key}"

    def hide_statement(match: re.Match[str]) -> str:
        key = f"KGL{len(jinja):04d}".ljust(PLACEHOLDER_LENGTH, "x") + ";"
        jinja[key] = match.group(2)
        return match.group(1) + key

    code = STATEMENT_LINE.sub(lambda m: hide(m, "S"), template)
    if comment == "//":
        # An expression alone on a line is C++ statements (a function body from kernel.toml):
        # hidden as one statement, or clang-format joins it to the lines after it.
        code = EXPRESSION_LINE.sub(hide_statement, code)
    return EXPRESSION.sub(lambda m: hide(m, "E"), code), jinja, blank_lines_before


def to_template(
    code: str, jinja: dict[str, str], blank_lines_before: dict[str, int], comment: str
) -> str:
    for key, text in jinja.items():
        if key.startswith("KGS"):
            statement = "\n" + "\n" * blank_lines_before[key] + text
            code = re.sub(
                rf"\n*^[ \t]*{re.escape(comment)} {key}$",
                lambda _, statement=statement: statement,
                code,
                flags=re.M,
            )
        code = code.replace(key, text)
    return code


def ruff_config(folder: Path) -> Path:
    """The generated projects' ruff settings, as a ruff.toml in `folder`."""
    pyproject = (REPO / "templates" / "project" / "pyproject.toml.jinja").read_text()
    tables = pyproject[pyproject.index("[tool.ruff]") :]
    tables = tables[: tables.index("[tool.pytest")] if "[tool.pytest" in tables else tables
    config = folder / "ruff.toml"
    text = re.sub(r"^\[tool\.ruff\.?", "[", tables, flags=re.M).replace("[]", "")
    # The package's name is a placeholder here.
    text = text.replace('known-first-party = ["{{ package }}"]', 'known-first-party = ["KGE*"]')
    config.write_text(text)
    return config


def _split_arguments(text: str) -> list[str]:
    """`a, f(b, c), "d, e"` -> ["a", "f(b, c)", '"d, e"']: commas outside brackets and strings."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote and text[i - 1] != "\\" else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def explode_name_dependent_calls(code: str) -> str:
    """Split each bracket ruff wrapped with its contents on one line, one item per line."""
    lines = code.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        indent = len(line) - len(line.lstrip())
        inner = lines[i + 1] if i + 1 < len(lines) else ""
        closing = lines[i + 2] if i + 2 < len(lines) else ""
        stripped = line.rstrip()
        if (
            re.search(r"[\w)\]]\($", stripped)  # a call or a def: a trailing comma is harmless
            and inner.startswith(" " * (indent + 4))
            and not inner.startswith(" " * (indent + 5))
            and closing[: indent + 1].strip() == ")"
            and len(closing) - len(closing.lstrip()) == indent
            and "KGE" in line + inner
            and not re.search(r"\sfor\s", inner)  # a generator argument takes no comma
        ):
            out.append(line)
            out += [" " * (indent + 4) + part + "," for part in _split_arguments(inner.strip())]
            out.append(closing)
            i += 3
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def format_code(code: str, suffix: str, work: Path) -> str:
    if suffix in CPP_SUFFIXES:
        style = f"--style=file:{REPO / 'templates' / 'project' / '.clang-format'}"
        name = "x" + suffix.removesuffix(".jinja")
        result = subprocess.run(
            [_tool("clang-format"), style, f"--assume-filename={name}"],
            input=code,
            capture_output=True,
            text=True,
            check=True,
        )
        return result.stdout
    source = work / "x.py"
    source.write_text(code)
    config = ruff_config(work)
    ruff, settings = _tool("ruff"), ["--config", str(config), "-q", str(source)]

    def run_ruff(*command: str) -> int:
        return subprocess.run([ruff, *command, *settings], capture_output=True).returncode

    # Both branches of an {% if %} at once may not be valid Python (setup.py's are not):
    # such a template is left as it is; the tests check its rendered output.
    if run_ruff("format"):
        return code
    run_ruff("check", "--select", "I", "--fix")
    source.write_text(explode_name_dependent_calls(source.read_text()))
    run_ruff("format")
    return source.read_text()


def templates() -> list[Path]:
    return sorted(
        p
        for folder in TEMPLATE_DIRS
        for p in folder.rglob("*")
        if p.is_file() and p.name.endswith((*CPP_SUFFIXES, ".py.jinja", ".py"))
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="only list the templates that would change"
    )
    args = parser.parse_args()
    changed = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in templates():
            suffix = next(s for s in (*CPP_SUFFIXES, ".py.jinja", ".py") if path.name.endswith(s))
            comment = "//" if suffix in CPP_SUFFIXES else "#"
            template = path.read_text()
            code, jinja, blanks = to_code(template, comment)
            formatted = to_template(format_code(code, suffix, Path(tmp)), jinja, blanks, comment)
            if formatted != template:
                changed.append(path.relative_to(REPO))
                if not args.check:
                    path.write_text(formatted)
    for path in changed:
        print(("would reformat " if args.check else "reformatted ") + str(path))
    sys.exit(1 if changed and args.check else 0)


if __name__ == "__main__":
    main()
