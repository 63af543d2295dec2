import { describe, expect, it } from "vitest";
import { keyFileRank, pickKeyFiles, resolveEntries } from "./key-files.js";

describe("which files to read, best first", () => {
  it("the manifests' entry points right after the README and manifests, ahead of tests and fixtures", () => {
    const files = [
      "readme.md",
      "package.json",
      "test/fixtures/hello.sh",
      "test-d/execa.test-d.ts",
      ".devcontainer/post-create.sh",
      "lib/run.js",
      "index.js",
      "index.d.ts",
    ];
    expect(pickKeyFiles(files, 8, ["index.d.ts", "index.js"])).toEqual([
      "readme.md",
      "package.json",
      "index.d.ts",
      "index.js",
      "lib/run.js",
      ".devcontainer/post-create.sh",
      "test/fixtures/hello.sh",
      "test-d/execa.test-d.ts",
    ]);
  });

  it("a language's own entry points: lib.rs, doc.go and the root's Go files, a package's __init__.py", () => {
    const rank = (file: string) => keyFileRank(file) ?? Number.POSITIVE_INFINITY;
    expect(rank("src/lib.rs")).toBeLessThan(rank("src/chain.rs"));
    expect(rank("src/lib.rs")).toBeLessThan(rank("tests/common/mod.rs"));
    expect(rank("doc.go")).toBeLessThan(rank("mux.go"));
    expect(rank("mux.go")).toBeLessThan(rank("internal/parse.go"));
    expect(rank("mux.go")).toBeLessThan(rank("mux_test.go"));
    expect(rank("click/__init__.py")).toBeLessThan(rank("click/core.py"));
    // A distribution's metadata folder: PKG-INFO is its manifest, the rest of its lists say nothing.
    expect(rank("click-8.1.egg-info/PKG-INFO")).toBe(1);
    expect(keyFileRank("click-8.1.egg-info/top_level.txt")).toBeUndefined();
    // Another language's copy of the README is not read.
    expect(keyFileRank("README.ja.md")).toBeUndefined();
  });

  it("spread over the folders: at most two from one subfolder before its siblings get a turn", () => {
    const files = ["a", "b", "c", "d"].flatMap((dir) =>
      ["one", "two", "three"].map((name) => `lib/${dir}/${name}.js`),
    );
    expect(pickKeyFiles(files, 6)).toEqual([
      "lib/a/one.js",
      "lib/a/three.js",
      "lib/b/one.js",
      "lib/b/three.js",
      "lib/a/two.js",
      "lib/b/two.js",
    ]);
  });

  it("entry points resolve against the files, a `**/` pattern anywhere", () => {
    const files = ["src/tide/Main.java", "dist/index.js", "README.md"];
    expect(resolveEntries(["./dist/index.js", "dist/missing.js", "**/tide/Main.java"], files)).toEqual([
      "dist/index.js",
      "src/tide/Main.java",
    ]);
  });
});
