import { describe, expect, it } from "vitest";
import { looksLikeCommand, readmeCommands, readmePurpose, readmeTitle } from "./readme.js";

describe("README purpose and title", () => {
  it("ATX heading directly followed by the description (no blank line)", () => {
    const text = "# tides\nCounts the tides of a harbour.\nRun `python3 src/app/main.py`.\n\n## More\n";
    expect(readmeTitle(text)).toBe("tides");
    expect(readmePurpose(text)).toBe("Counts the tides of a harbour. Run `python3 src/app/main.py`.");
  });

  it("setext headings, HTML comments and badges before the first prose paragraph", () => {
    const text = [
      "<!-- generated: do not edit -->",
      "[![ci](https://x.invalid/b.svg)](https://x.invalid) ![cov](https://x.invalid/c.svg)",
      "",
      "Tide Suite",
      "==========",
      "Tide Suite computes **tide tables** for [harbours](https://x.invalid).",
      "",
      "Usage",
      "-----",
    ].join("\n");
    expect(readmeTitle(text)).toBe("Tide Suite");
    expect(readmePurpose(text)).toBe("Tide Suite computes tide tables for harbours.");
  });

  it("reStructuredText: titles with any adornment, badges and directives skipped, literal and code blocks", () => {
    const rst = [
      ".. image:: https://img.shields.io/pypi/v/tidy.svg",
      "   :target: https://pypi.org/project/tidy",
      "",
      "=====",
      "tidy",
      "=====",
      "",
      "Tidy cleans up tide logs before they are plotted, see ``tidy.clean`` and `the docs <https://x.test>`_.",
      "",
      "Usage::",
      "",
      "    python -m tidy logs/*.csv",
      "",
      "Install",
      "~~~~~~~",
      "",
      ".. code-block:: bash",
      "   :linenos:",
      "",
      "   pip install tidy",
      "",
      ".. note:: not a command",
      "   make nothing",
    ].join("\n");
    expect(readmeTitle(rst)).toBe("tidy");
    expect(readmePurpose(rst)).toBe(
      "Tidy cleans up tide logs before they are plotted, see `tidy.clean` and the docs.",
    );
    expect(readmeCommands(rst, "README.rst").map((c) => `${c.command} (${c.source})`)).toEqual([
      "python -m tidy logs/*.csv (README.rst)",
      "pip install tidy (README.rst, “Install”)",
    ]);
  });

  it("badges inside the title; a collapsed table of contents and a quote before the first paragraph", () => {
    const text = [
      "# Tide SDK [![npm](https://img.shields.io/npm/v/tide)](https://npmjs.com/tide) [![ci][ci-badge]][ci]",
      "",
      "> **This is v1.** See the v2 docs.",
      "",
      "<details>",
      "<summary>Table of Contents</summary>",
      "",
      "- [Overview](#overview)",
      "",
      "</details>",
      "",
      "## Overview",
      "",
      "Tide SDK lets programs predict tides. It makes it easy to:",
      "",
      "- predict",
    ].join("\n");
    expect(readmeTitle(text)).toBe("Tide SDK");
    expect(readmePurpose(text)).toBe("Tide SDK lets programs predict tides.");
  });

  it("Chinese and Japanese prose (no spaces between words) is prose", () => {
    const zh = "# 潮汐表\n\n这个程序根据调和常数计算港口的潮汐时间。它很小。用法：\n\n- 运行\n";
    expect(readmePurpose(zh)).toBe("这个程序根据调和常数计算港口的潮汐时间。它很小。");
    expect(readmePurpose("# 表\n\n潮汐\n")).toBeUndefined();
  });

  it("Markdown is never read as reStructuredText (a one-line fence, one-line front matter)", () => {
    const fenced = "# mytool\n\nA tool that tidies tide logs.\n\n```\nnpm install -g mytool\n```\n";
    expect(readmeCommands(fenced).map((c) => c.command)).toEqual(["npm install -g mytool"]);
    const noHeading = "Tidies tide logs for sailors.\n\n```\nnpm start\n```\n";
    expect(readmeTitle(noHeading)).toBeUndefined();
    expect(readmeCommands(noHeading).map((c) => c.command)).toEqual(["npm start"]);
    const front = "---\nlayout: default\n---\n\nTidies tide logs for sailors.\n";
    expect(readmeTitle(front)).toBeUndefined();
    expect(readmePurpose(front)).toBe("Tidies tide logs for sailors.");
  });

  it("a sentence that only introduces a list is left out of the purpose", () => {
    expect(readmePurpose("# yaml\n\n`yaml` is a library for YAML. This library:\n\n- parses\n")).toBe(
      "`yaml` is a library for YAML.",
    );
    expect(readmePurpose("# t\n\nThis package offers small tools for sailors:\n\n- a\n")).toBe(
      "This package offers small tools for sailors:",
    );
  });

  it("HTML headings and centred paragraphs; lists and one-word lines are not prose", () => {
    const text =
      '<h1 align="center">Harbour</h1>\n<p align="center">\n  <img src="logo.png">\n</p>\n\n- item one here\n\nWIP\n\nHarbour prints tide times for sailors.\n';
    expect(readmeTitle(text)).toBe("Harbour");
    expect(readmePurpose(text)).toBe("Harbour prints tide times for sailors.");
  });

  it("no prose at all", () => {
    expect(readmePurpose("# Title\n\n```sh\nmake\n```\n")).toBeUndefined();
  });
});

describe("README commands", () => {
  it("takes shell fences, console prompts and inline code spans, with the section they came from", () => {
    const text = [
      "# app",
      "Run it with `python3 src/app/main.py --help` or read `config.yaml`.",
      "## Install",
      "```bash",
      "# a comment",
      "pnpm install",
      "cd somewhere",
      "```",
      "```console",
      "$ make run",
      "output line",
      "```",
      "```json",
      '{"not": "a command"}',
      "```",
      "```",
      "plain text output",
      "./scripts/start.sh",
      "```",
    ].join("\n");
    expect(readmeCommands(text)).toEqual([
      { command: "python3 src/app/main.py --help", source: "README.md" },
      { command: "pnpm install", source: "README.md, “Install”" },
      { command: "make run", source: "README.md, “Install”" },
      { command: "./scripts/start.sh", source: "README.md, “Install”" },
    ]);
  });

  it("knows commands from prose words", () => {
    expect(
      ["npm test", "./run.sh", "cargo run", "tools/x.sh", "the end", "config.yaml"].map(looksLikeCommand),
    ).toEqual([true, true, true, true, false, false]);
  });
});
