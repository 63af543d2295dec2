import { describe, expect, it } from "vitest";
import {
  cleanTitle,
  decodeEntities,
  looksLikeCommand,
  readmeCommands,
  readmeDescription,
  readmePurpose,
  readmeTitle,
} from "./readme.js";

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

describe("README openings that are not descriptions (logos, sponsors, notes, taglines)", () => {
  it("an HTML logo, a badge, a quoted tagline and a sponsor block before the first sentence", () => {
    const text = [
      "<picture>",
      '  <source media="(prefers-color-scheme: dark)" srcset="logo_dark.svg">',
      '  <img alt="tide logo" src="logo.svg" width="400">',
      "</picture>",
      "<br>",
      "",
      "[![ci](https://ci.invalid/b.svg)](https://ci.invalid)",
      "",
      "> Tides for humans",
      "",
      "---",
      "",
      '<div align="center">',
      "  <p>",
      '    <a href="https://sponsors.invalid">Our work is supported by the community</a>',
      "  </p>",
      "</div>",
      "",
      "Tide runs harbour predictions from your scripts. It is built on the tables.",
      "",
      "## Features",
      "",
      "- fast",
    ].join("\n");
    expect(readmeTitle(text)).toBeUndefined();
    expect(readmeDescription(text)).toEqual({
      text: "Tide runs harbour predictions from your scripts. It is built on the tables.",
      opening: true,
    });
  });

  it("a section heading is no title; a heading below prose is none either", () => {
    expect(readmeTitle("## Description\n\nTide tables for sailors in one file.\n")).toBeUndefined();
    expect(readmeTitle("Tide tables for the harbour office.\n\n# Usage\n")).toBeUndefined();
    expect(
      readmeTitle('<h1 align="center">\n  <img src="logo.svg" alt="Tide">\n</h1>\n\n## Info\n'),
    ).toBeUndefined();
  });

  it("notes, licence lines, sponsor lines, language bars and lead-ins are skipped; a tagline is no sentence", () => {
    const text = [
      "# tide",
      "",
      "**IMPORTANT:** Tide 5 is ESM only, read the notes before upgrading.",
      "",
      "Dual-licensed under [Apache 2.0](LICENSE-APACHE) or [MIT](LICENSE-MIT).",
      "",
      "**English** | [日本語](./README.ja.md) | [Русский](./README.ru.md)",
      "",
      "Tide computes the next high water of a harbour from its constants.",
    ].join("\n");
    expect(readmeDescription(text)?.text).toBe(
      "Tide computes the next high water of a harbour from its constants.",
    );
    // A tagline, then sections: nothing in the opening says what it is.
    const tagline = "# sign\n\n… so better sign this\n\n## Usage\n\nAs a module:\n\n```js\nsign()\n```\n";
    expect(readmeDescription(tagline)).toEqual({ text: "… so better sign this", opening: false });
    // A multi-line <img> tag and link definitions are not prose.
    const img =
      '# Nano\n\n<img src="logo.svg"\n     alt="logo">\n\n[ci]: https://ci.invalid/badge.svg\n\nA tiny generator of IDs for scripts.\n';
    expect(readmeDescription(img)).toEqual({ text: "A tiny generator of IDs for scripts.", opening: true });
    // Linked badge images written as HTML inside Markdown links.
    const badges =
      '# t\n\n[<img alt="github" src="https://b.invalid/a.svg" height="20">](https://x.invalid) [<img alt="ci" src="https://b.invalid/c.svg">](https://y.invalid)\n\nThis library provides one error type for applications.\n';
    expect(readmePurpose(badges)).toBe("This library provides one error type for applications.");
  });

  it("titles lose badges, images, HTML, entities, escapes, emoji and the decoration after a spacer", () => {
    expect(cleanTitle("Anyhow&ensp;¯\\\\\\_(°ペ)\\_/¯")).toBe("Anyhow");
    expect(cleanTitle("Serde JSON &emsp; [![Build Status]][travis] [![Latest Version]][crates.io]")).toBe(
      "Serde JSON",
    );
    expect(cleanTitle("\\$ click\\_")).toBe("click");
    expect(cleanTitle('<img src="logo.svg"> Harbour 🌊')).toBe("Harbour");
    expect(cleanTitle("`node-gyp` - Node.js native addon build tool")).toBe(
      "`node-gyp` - Node.js native addon build tool",
    );
    expect(cleanTitle("[![ci](https://x.invalid/b.svg)](https://x.invalid)")).toBeUndefined();
    expect(decodeEntities("a &amp; b &#x41;&#66; &unknown; &#0;")).toBe("a & b AB  ");
  });

  it("reStructuredText links and literals over line breaks", () => {
    const rst = [
      "``tide`` predicts *tides*",
      "=========================",
      "",
      "Video introduction to **tide**: `Harbour talk: predicting",
      "tides with Python <http://video.invalid/x>`_",
      "",
      ".. code-block:: text",
      "",
      "    $ pip install -U tide",
    ].join("\n");
    expect(readmeTitle(rst)).toBe("`tide` predicts *tides*");
    expect(readmePurpose(rst)).toBe("Video introduction to tide: Harbour talk: predicting tides with Python");
    expect(readmeCommands(rst, "PKG-INFO").map((c) => c.command)).toEqual(["pip install -U tide"]);
  });
});

describe("README commands, never program output", () => {
  it("a console block of output, an error sample in a script block, a trailing comment", () => {
    const text = [
      "# t",
      "```console",
      "Error: Failed to read instrs from ./path/to/instrs.json",
      "",
      "Caused by:",
      "    No such file or directory (os error 2)",
      "```",
      "```bash",
      "tide --help   # shows the options",
      "Error: no harbour given",
      "```",
    ].join("\n");
    expect(readmeCommands(text).map((c) => c.command)).toEqual(["tide --help"]);
  });

  it("environment assignments before a prompted command; an indented block's commands", () => {
    const text = [
      "cli",
      "===",
      "",
      "```",
      "$ GO111MODULE=on go get example.invalid/cli/v2",
      "```",
      "",
      "Install the module:",
      "",
      "    go get example.invalid/tide@latest",
      "",
      "- a list item",
      "",
      "    continues the item, not code",
    ].join("\n");
    expect(readmeCommands(text).map((c) => c.command)).toEqual([
      "GO111MODULE=on go get example.invalid/cli/v2",
      "go get example.invalid/tide@latest",
    ]);
    expect(looksLikeCommand("CGO_ENABLED=0 go build ./...")).toBe(true);
  });

  it("the dependency lines of a TOML block (the line a user pastes into Cargo.toml)", () => {
    const text =
      '# tide\n\n```toml\n[package]\nname = "app"\n\n[dependencies]\ntide = "1.0"  # the latest\nserde = { version = "1", features = ["derive"] }\n```\n';
    expect(readmeCommands(text)).toEqual([
      { command: 'tide = "1.0"', source: "README.md", note: "a line for Cargo.toml's [dependencies]" },
      {
        command: 'serde = { version = "1", features = ["derive"] }',
        source: "README.md",
        note: "a line for Cargo.toml's [dependencies]",
      },
    ]);
  });
});
