#!/usr/bin/env python3
"""Runs the shell blocks of a Markdown file and checks the output they show.

Usage: check_docs.py [--update] SOURCE_DIR BUILD_DIR FILE.md...

The rules the docs follow (docs/architecture.md, "Documented commands"):
  - A shell block is a fenced block tagged sh, bash or shell. Each runs, in the
    order of the file, with bash -e -o pipefail in a scratch folder that holds the
    repository's top-level entries (as links) and build/ (the build being tested).
  - A shell block whose first line is "# not run by the docs check: WHY" is not run;
    WHY must say why (a Slurm cluster, a long benchmark, a system-wide install).
  - A block tagged "output" right after a shell block (only prose between) is what
    that block prints, stdout and stderr together. In it, a line "..." stands for
    any number of lines and "[...]" inside a line for any text.
  - Ports 50051-50059 on 127.0.0.1 or localhost become free ports (the same port
    everywhere in one file), so a check never meets a daemon already running.
  - Every process a block starts (daemons sent to the background included) is
    stopped, by its process group, when the block ends.
  - An untagged block that starts like a command ("$ ", "build/", "bash ") is an
    error: tag it sh, or show it as output.
--update rewrites each output block (one without wildcards) with what its block
printed. Exit status 0 when every block that runs passes, 1 otherwise.
"""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

FENCE = re.compile(r"^(```+)\s*([\w-]*)")
NOT_RUN = re.compile(r"^# not run by the docs check: (\S.*)$")
PORT = re.compile(r"\b(127\.0\.0\.1|localhost):(5005\d)\b")
SHELL_TAGS = {"sh", "bash", "shell"}
TIMEOUT_S = 600


def blocks_of(path):
    """[(first line number, tag, [lines])] of every fenced block in the file."""
    found, fence, start, tag, body = [], None, 0, "", []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if fence is None:
                m = FENCE.match(line)
                if m:
                    fence, start, tag, body = m.group(1), number, m.group(2), []
            elif line.startswith(fence) and line.strip() == fence:
                found.append((start, tag, body))
                fence = None
            else:
                body.append(line)
    if fence is not None:
        raise SystemExit(f"{path}:{start}: the block is not closed")
    return found


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scratch_folder(source, build):
    """A temporary folder with the repository's entries as links and build/."""
    work = tempfile.mkdtemp(prefix="hopmap-docs-")
    source = os.path.abspath(source)
    for entry in os.listdir(source):
        if entry not in ("build", ".git"):
            os.symlink(os.path.join(source, entry), os.path.join(work, entry))
    os.symlink(os.path.abspath(build), os.path.join(work, "build"))
    return work


def run_block(script, work):
    """What the block printed (stdout and stderr) and its exit status."""
    # A file, not a pipe: a daemon the block leaves running keeps a pipe open.
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(["bash", "-e", "-o", "pipefail", "-c", script], cwd=work,
                                   stdin=subprocess.DEVNULL, stdout=out,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            status = process.wait(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            status = f"timed out after {TIMEOUT_S} s"
        for sig in (signal.SIGTERM, signal.SIGKILL):  # whatever it left running
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                break
            if sig == signal.SIGTERM:
                time.sleep(0.5)
        process.wait()
        out.seek(0)
        return out.read().decode("utf-8", "replace"), status


def normalized(text):
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def line_matches(pattern, line):
    if "[...]" not in pattern:
        return pattern == line
    parts = [re.escape(p) for p in pattern.split("[...]")]
    return re.fullmatch(".*".join(parts), line) is not None


def lines_match(expected, actual):
    """Whether the lines match, a line "..." standing for any number of lines."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(lines_match(expected[1:], actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and line_matches(expected[0], actual[0]) and lines_match(
        expected[1:], actual[1:])


def check_file(path, source, build, update):
    """(passed, failed, skipped, new text of the file or None)."""
    passed = failed = skipped = 0
    blocks = blocks_of(path)
    work = scratch_folder(source, build)
    ports = {}
    name = os.path.relpath(path, source)
    previous = None  # (line, output) of the last shell block that ran
    rewrites = {}
    for start, tag, body in blocks:
        where = f"{name}:{start}"
        first = body[0] if body else ""
        if tag in SHELL_TAGS:
            previous = None
            why = NOT_RUN.match(first)
            if why:
                print(f"skip {where}: {why.group(1)}")
                skipped += 1
                continue
            if first.startswith("# not run"):
                print(f"FAIL {where}: write '# not run by the docs check: WHY'")
                failed += 1
                continue
            script = PORT.sub(
                lambda m: f"{m.group(1)}:{ports.setdefault(m.group(2), free_port())}",
                "\n".join(body))
            output, status = run_block(script, work)
            if status != 0:
                print(f"FAIL {where}: exit status {status}; it printed:\n{output}")
                failed += 1
                continue
            previous = (start, output)
            print(f"ok   {where}")
            passed += 1
        elif tag == "output":
            if previous is None:
                print(f"FAIL {where}: an output block with no shell block run before it")
                failed += 1
                continue
            actual = normalized(previous[1])
            if lines_match(normalized("\n".join(body)), actual):
                print(f"ok   {where} (the output of line {previous[0]})")
                passed += 1
            elif update and not any("..." in line for line in body):
                rewrites[start] = actual
                print(f"updated {where}")
            else:
                print(f"FAIL {where}: the block at line {previous[0]} printed instead:")
                print("\n".join(actual))
                failed += 1
            previous = None
        elif tag == "" and re.match(r"^(\$ |build/|bash )", first):
            print(f"FAIL {where}: a command in an untagged block: tag it sh (or output)")
            failed += 1
    shutil.rmtree(work)
    if not rewrites:
        return passed, failed, skipped, None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for start in sorted(rewrites, reverse=True):
        end = start
        while lines[end].strip() != "```":
            end += 1
        lines[start:end] = rewrites[start]
    return passed, failed, skipped, "\n".join(lines)


def main(argv):
    update = "--update" in argv
    args = [a for a in argv if a != "--update"]
    if len(args) < 3:
        print("usage: check_docs.py [--update] SOURCE_DIR BUILD_DIR FILE.md...", file=sys.stderr)
        return 2
    source, build, files = args[0], args[1], args[2:]
    if not os.access(os.path.join(build, "client", "hopmap"), os.X_OK):
        print(f"check_docs: {build}/client/hopmap is not built", file=sys.stderr)
        return 1
    totals = [0, 0, 0]
    for path in files:
        passed, failed, skipped, text = check_file(path, source, build, update)
        if text is not None:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        totals = [totals[0] + passed, totals[1] + failed, totals[2] + skipped]
    print(f"docs: {totals[0]} passed, {totals[1]} failed, {totals[2]} not run (marked)")
    return 1 if totals[1] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
