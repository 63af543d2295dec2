import { describe, expect, it } from "vitest";
import { pickKeyFiles } from "./key-files.js";
import { docComment, makeTargets, summarizeFile, topLevelDefinitions } from "./summarize-file.js";

describe("one line per file, from its own content", () => {
  it("JS/TS: the leading doc comment and the exported names in source order", () => {
    const ts =
      "/**\n * Loads the config.\n * @module\n */\nimport x from 'y';\nexport interface Options {}\nexport async function load() {}\nconst inner = () => 1;\nexport { inner as helper };\n";
    expect(summarizeFile("src/load.ts", ts)).toBe("Loads the config. Exports `Options`, `load`, `helper`");
    expect(topLevelDefinitions("a.js", "function a() {}\nclass B {}\nconst c = (x) => x;\n")).toEqual({
      exported: false,
      names: ["a", "B", "c"],
    });
    expect(topLevelDefinitions("a.cjs", "module.exports = { run, stop };\n").names).toEqual(["run", "stop"]);
  });

  it("Python: the module docstring and top-level defs and classes (not methods)", () => {
    const py =
      '#!/usr/bin/env python3\n"""Entry point: reads a tide table."""\nimport sys\n\nclass Table:\n    def parse(self):\n        pass\n\nasync def main():\n    pass\n';
    expect(summarizeFile("src/main.py", py)).toBe("Entry point: reads a tide table. Defines `Table`, `main`");
    // `__all__` is the module's public interface.
    const init =
      'from .core import Tide\n\n__all__ = [\n    "Tide",\n    "predict",\n]\n\ndef _helper():\n    pass\n';
    expect(summarizeFile("tides/__init__.py", init)).toBe("exports `Tide`, `predict`");
  });

  it("a licence banner is not a doc comment", () => {
    const banner =
      "/*!\n * forwarded\n * Copyright(c) 2014 Someone\n * MIT Licensed\n */\n\nmodule.exports = forwarded;\nfunction forwarded() {}\n";
    expect(summarizeFile("index.js", banner)).toBe("defines `forwarded`");
    const described =
      "/*!\n * Parses the X-Forwarded-For header.\n * Licensed under the MIT license.\n */\nexport function parse() {}\n";
    expect(summarizeFile("index.js", described)).toBe("Parses the X-Forwarded-For header. Exports `parse`");
  });

  it("tool directives are not doc comments; a file read in part says its names are from that part", () => {
    const py = "# mypy: allow-untyped-defs\n# -*- coding: utf-8 -*-\nimport os\n\ndef run():\n    pass\n";
    expect(summarizeFile("fixtures.py", py)).toBe("defines `run`");
    expect(summarizeFile("conftest.py", "# mypy: allow-untyped-defs\nimport os\n")).toBe(
      "starts with `import os`",
    );
    expect(summarizeFile("index.js", "'use strict';\n\nvar x = require('x');\n")).toBe(
      "starts with `var x = require('x');`",
    );
    const ts = "// @ts-nocheck\n/* eslint-disable */\nexport function load() {}\n";
    expect(summarizeFile("load.ts", ts)).toBe("exports `load`");
    const sh = "#!/bin/sh\n# shellcheck disable=SC2086\n# Builds the site.\nbuild() { :; }\n";
    expect(summarizeFile("build.sh", sh)).toBe("Builds the site. Defines `build`");
    const head = `"""Core loop."""\n${"\n".repeat(50)}def main():\n    pass\n${"x = 1\n".repeat(10)}`;
    expect(summarizeFile("main.py", head, 60)).toBe("Core loop. Defines `main` in its first 60 lines");
    expect(summarizeFile("main.py", head, 200)).toBe("Core loop. Defines `main`");
  });

  it("Go: the package doc comment; Rust: the //! comment", () => {
    const go =
      "// Package tides predicts tides.\n// It is small.\npackage tides\n\ntype Tide struct{}\n\nfunc (t Tide) Height() float64 { return 0 }\n";
    expect(docComment("tides.go", go)).toBe("Package tides predicts tides. It is small.");
    expect(summarizeFile("tides.go", go)).toBe(
      "Package tides predicts tides. It is small. Defines `Tide`, `Height`",
    );
    const rs = "//! The tide crate.\n\npub struct Tide;\npub(crate) fn week() {}\nmod inner;\n";
    expect(summarizeFile("src/lib.rs", rs)).toBe("The tide crate. Defines `Tide`, `week`, `inner`");
  });

  it("C/C++ and class-based languages: the leading comment, functions, types and classes", () => {
    const c =
      '/* Prints the tide table of one harbour. */\n#include "tide.h"\n\nint main(int argc, char **argv) {\n  if (argc) return 1;\n  return 0;\n}\n\nstatic double *height(double t)\n{\n  return 0;\n}\nstruct tide { int h; };\n';
    expect(summarizeFile("src/main.c", c)).toBe(
      "Prints the tide table of one harbour. Defines `main`, `height`, `tide`",
    );
    const h =
      "#ifndef TIDE_H\n#define TIDE_H\ndouble tide_height(double t);\ntypedef struct harbour harbour;\n#endif\n";
    expect(summarizeFile("include/tide.h", h)).toBe("defines `tide_height`, `harbour`");
    const java =
      "/**\n * Predicts tides.\n */\npackage tides;\n\nimport java.util.List;\n\npublic final class Predictor {\n  public int next() { return 0; }\n}\ninterface Source {}\n";
    expect(summarizeFile("src/main/java/tides/Predictor.java", java)).toBe(
      "Predicts tides. Defines `Predictor`, `Source`",
    );
    expect(summarizeFile("App.kt", "data class Tide(val h: Double)\nfun main() {}\n")).toBe(
      "defines `Tide`, `main`",
    );
  });

  it("Dockerfiles (base images, what runs) and Compose files (services)", () => {
    const dockerfile =
      'FROM node:20 AS build\nRUN npm ci\nFROM --platform=linux/amd64 node:20-slim\nCMD ["node", "server.js"]\n';
    expect(summarizeFile("Dockerfile", dockerfile)).toBe(
      'image from `node:20`, then `node:20-slim`; runs `["node", "server.js"]`',
    );
    const compose =
      'services:\n  api:\n    build: .\n    ports: ["8080:8080"]\n\n  db:\n    image: postgres:15\nvolumes:\n  data:\n';
    expect(summarizeFile("compose.yaml", compose)).toBe("Compose services `api`, `db`");
    expect(summarizeFile("docker-compose.yml", "version: '3'\n")).toBe("Compose file");
  });

  it("shell: the comment after the shebang and the functions", () => {
    const sh =
      "#!/usr/bin/env bash\n# Deploys the site.\nset -e\nbuild() {\n  :\n}\nfunction push {\n  :\n}\n";
    expect(summarizeFile("scripts/deploy.sh", sh)).toBe("Deploys the site. Defines `build`, `push`");
  });

  it("Makefiles, README titles, manifests and files with nothing to say", () => {
    expect(makeTargets("VAR := 1\n.PHONY: all\nall: build\nbuild:\n\tcc x.c\n%.o: %.c\n")).toEqual([
      "all",
      "build",
    ]);
    expect(summarizeFile("Makefile", "run:\n\tpython3 main.py\n")).toBe("targets `run`");
    expect(summarizeFile("README.md", "Tides\n=====\nText.\n")).toBe("Tides");
    expect(
      summarizeFile("README.md", "# Tides\nPrints the tide table, e.g. 3.2 m at noon. Run `tides`.\n"),
    ).toBe("Tides: Prints the tide table, e.g. 3.2 m at noon.");
    expect(summarizeFile("README.md", "# 潮汐表\n\n这个程序计算港口的潮汐时间。它很小。\n")).toBe(
      "潮汐表: 这个程序计算港口的潮汐时间。",
    );
    expect(summarizeFile("readme.txt", "Prints tide tables for harbours. Run it daily.\n")).toBe(
      "Prints tide tables for harbours.",
    );
    expect(summarizeFile("go.mod", "module a.invalid/b\n")).toBe("Go module `a.invalid/b`");
    expect(summarizeFile("notes.txt", "\n  hello there\n")).toBe("starts with `hello there`");
    expect(summarizeFile("empty.txt", "")).toBe("empty");
  });
});

describe("key files", () => {
  it("README and manifests first, then scripts and entry points, shallow before deep, no lockfiles or binaries", () => {
    const files = [
      "yarn.lock",
      "logo.png",
      "docs/guide.md",
      "src/app/util.py",
      "src/app/main.py",
      "tools/refresh.sh",
      "Makefile",
      "package.json",
      "README.md",
      "tests/test_main.py",
    ];
    expect(pickKeyFiles(files, 10)).toEqual([
      "README.md",
      "package.json",
      "Makefile",
      "tools/refresh.sh",
      "src/app/main.py",
      "src/app/util.py",
      "docs/guide.md",
      "tests/test_main.py",
    ]);
  });

  it("a folder of documents: top-level ones and nested READMEs, not changelogs or licences", () => {
    const files = [
      "CHANGELOG.md",
      "LICENSE.md",
      "DESIGN.md",
      "CONTRIBUTING.md",
      "reference/schemas/README.md",
      "reference/schemas/fs.json",
      "notes/deep/er/idea.md",
    ];
    expect(pickKeyFiles(files, 10)).toEqual(["CONTRIBUTING.md", "DESIGN.md", "reference/schemas/README.md"]);
    // A build file named .txt is a build file, not a document.
    expect(pickKeyFiles(["DESIGN.md", "CMakeLists.txt", "docs/CMakeLists.txt"], 10)).toEqual([
      "CMakeLists.txt",
      "DESIGN.md",
      "docs/CMakeLists.txt",
    ]);
    expect(summarizeFile("DESIGN.md", "# Design\n\nThree layers, one direction. More below.\n")).toBe(
      "Design: Three layers, one direction.",
    );
  });

  it("spreads the reads over the top-level folders", () => {
    const files = [
      ...Array.from({ length: 8 }, (_, i) => `apps/web/src/main${i}.ts`),
      "packages/core/package.json",
    ];
    expect(pickKeyFiles(files, 5)).toContain("packages/core/package.json");
  });

  it("licence headers, banners, badge rows and titles are not the doc comment (Go, Rust, Java, Python)", () => {
    const go =
      "// Copyright 2016 Someone. All rights reserved.\n// Use of this source code is governed by a BSD-style\n// license that can be found in the LICENSE file.\n\n// Package tides predicts tides.\npackage tides\n";
    expect(docComment("doc.go", go)).toBe("Package tides predicts tides.");
    const apache =
      '// Licensed under the Apache License, Version 2.0 (the "License");\n// you may not use this file except in compliance with the License.\n\npackage tides\n';
    expect(docComment("tides.go", apache)).toBeUndefined();
    // A head read that stops inside a long package doc comment (no `package` line read).
    expect(docComment("errors.go", "// Package errors provides error primitives.\n//\n// More text\n")).toBe(
      "Package errors provides error primitives.",
    );
    expect(docComment("doc.go", "// Licence lines.\n\n/*\nPackage color prints colours.\n\nMore")).toBe(
      "Package color prints colours.",
    );
    const rust =
      '// Copyright 2015 The Project Developers. See the COPYRIGHT\n// file at the top-level directory.\n\n//! [![ci]](https://x.invalid)&ensp;[![docs]](https://y.invalid)\n//!\n//! [ci]: https://img.invalid/ci.svg\n//!\n//! <br>\n//!\n//! # Tides\n//!\n//! A lightweight tide [`Table`][Table] for harbours.\n#![doc(html_root_url = "x")]\n';
    expect(docComment("src/lib.rs", rust)).toBe("A lightweight tide `Table` for harbours.");
    const java =
      "/*****************\n *  This file is part of Tide. Licensed under the MIT License.  *\n *****************/\npackage tide;\n\n/**\n\tThe tide interpreter.\n\tIt reads tables.\n*/\npublic class Interpreter {}\n";
    expect(docComment("src/tide/Interpreter.java", java)).toBe("The tide interpreter. It reads tables.");
    const py = '"""\nrequests.api\n~~~~~~~~~~~~\n\nThis module implements the API.\n"""\n';
    expect(docComment("requests/api.py", py)).toBe("This module implements the API.");
    expect(
      docComment("index.d.ts", "// TODO: remove when TS allows it.\nexport type A = 1;\n"),
    ).toBeUndefined();
    // The first line of a file whose only comment is a banner is its first line of code.
    expect(
      summarizeFile(
        "index.js",
        "/*!\n * tide\n * MIT Licensed\n */\n\n'use strict'\nmodule.exports = require('./lib/tide')\n",
      ),
    ).toBe("starts with `module.exports = require('./lib/tide')`");
  });
});
