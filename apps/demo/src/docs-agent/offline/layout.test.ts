import { describe, expect, it } from "vitest";
import { Inventory, layoutLines, parseListingReply, parseTreeReply, roughly } from "./layout.js";
import { parsePartialJson } from "./partial-json.js";

const file = (name: string) => ({ name, type: "file" });
const dir = (name: string, children: unknown[]) => ({ name, type: "directory", children });

describe("parsePartialJson", () => {
  it("reads a whole value and the note after it", () => {
    const parsed = parsePartialJson('[1, {"a": "b\\n"}]\n\n[truncated: 3 more entries]');
    expect(parsed).toMatchObject({
      value: [1, { a: "b\n" }],
      complete: true,
      rest: "[truncated: 3 more entries]",
    });
  });

  it("keeps what was complete in a cut text and marks the open containers", () => {
    const parsed = parsePartialJson('[{"name": "a", "children": [{"name": "x"}, {"name": "y');
    expect(parsed.complete).toBe(false);
    const value = parsed.value as { name: string; children: unknown[] }[];
    expect(value[0]?.name).toBe("a");
    expect(value[0]?.children).toHaveLength(2);
    expect(value[0]?.children[0]).toEqual({ name: "x" });
    expect(parsed.incomplete.has(value[0]?.children as object)).toBe(true);
    expect(parsed.incomplete.has(value[0]?.children[1] as object)).toBe(true);
  });

  it('keeps a "__proto__" key as an own key, as JSON.parse does (never the prototype)', () => {
    const text = '{"__proto__": {"polluted": true}, "name": "a"}';
    const parsed = parsePartialJson(text).value as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(parsed).toEqual(JSON.parse(text));
    expect(Object.hasOwn(parsed, "__proto__")).toBe(true);
    const cut = parsePartialJson('{"__proto__": {"polluted": "ye').value as Record<string, unknown>;
    expect(Object.getPrototypeOf(cut)).toBe(Object.prototype);
    expect(Object.hasOwn(cut, "__proto__")).toBe(true);
  });

  it("gives up on text that is not JSON", () => {
    expect(parsePartialJson("Error: no").value).toBeUndefined();
  });
});

describe("directory_tree and list_directory replies", () => {
  const whole = JSON.stringify([dir("src", [file("a.ts")]), file("README.md")], null, 2);

  it("reads a whole tree", () => {
    expect(parseTreeReply(whole)).toEqual({
      complete: true,
      entries: [
        { name: "src", type: "directory", children: [{ name: "a.ts", type: "file" }] },
        file("README.md"),
      ],
    });
  });

  it("understands a tree cut by the executor's bound: the cut folder is partial, earlier ones whole", () => {
    const text = JSON.stringify(
      [dir("aa", [file("1.ts")]), dir("bb", [file("2.ts"), file("3.ts")])],
      null,
      2,
    );
    const cut = `${text.slice(0, text.indexOf('"3.ts"'))}... [120 characters truncated]`;
    const tree = parseTreeReply(cut);
    expect(tree?.complete).toBe(false);
    expect(tree?.entries.map((e) => [e.name, e.partial ?? false])).toEqual([
      ["aa", false],
      ["bb", true],
    ]);
    expect(tree?.entries[1]?.children).toEqual([file("2.ts")]);
  });

  it("a tree the server cut: the folders it was in when it stopped may be cut too", () => {
    const text = `${JSON.stringify([dir("a", [file("x")]), dir("b", [file("y"), dir("c", [file("z")])])], null, 2)}\n\n[truncated: 40 more entries not shown]`;
    const tree = parseTreeReply(text);
    expect(tree?.complete).toBe(false);
    const [a, b] = tree?.entries ?? [];
    expect(a?.partial).toBeUndefined();
    expect(b?.partial).toBe(true);
    expect(b?.children?.[1]?.partial).toBe(true);
  });

  it("understands the server's own truncation note", () => {
    expect(parseTreeReply(`${whole}\n\n[truncated: 12 more entries not shown — …]`)?.complete).toBe(false);
  });

  it("reads listings, whole or cut", () => {
    expect(parseListingReply("[DIR] src\n[FILE] a.md")).toEqual({
      entries: [
        { name: "src", type: "directory" },
        { name: "a.md", type: "file" },
      ],
      complete: true,
      cutChars: 0,
      notShown: 0,
    });
    const cut = parseListingReply("[DIR] p-1\n[DIR] p-2\n[DIR] p-... [990 characters truncated]");
    expect(cut).toMatchObject({ complete: false, cutChars: 990 });
    expect(cut.entries.map((e) => e.name)).toEqual(["p-1", "p-2"]);
  });

  it("rounds estimates to two significant digits", () => {
    expect([roughly(1941), roughly(87), roughly(12_345)]).toEqual([1900, 87, 12_000]);
  });
});

describe("the layout", () => {
  it("lists every file of a small whole tree, folders first at every level", () => {
    const inventory = new Inventory();
    inventory.addListing("", parseListingReply("[FILE] README.md\n[DIR] src\n[DIR] node_modules"));
    inventory.addTree(
      "",
      parseTreeReply(
        JSON.stringify([file("README.md"), dir("src", [file("z.py"), dir("lib", [file("a.py")])])]),
      )!,
    );
    inventory.addListing("node_modules", parseListingReply("[DIR] a\n[DIR] b\n[FILE] .package-lock.json"));
    expect(layoutLines(inventory)).toEqual([
      "3 files in 2 folders:",
      "",
      "```text",
      "node_modules/  (not walked)",
      "src/",
      "  lib/",
      "    a.py",
      "  z.py",
      "README.md",
      "```",
      "",
      "Dependency and build folders, named but not walked: `node_modules/` (3 entries).",
    ]);
  });

  it("files beside a build folder only: all at the top level, not 'in 0 folders'", () => {
    const inventory = new Inventory();
    inventory.addListing("", parseListingReply("[FILE] README.md\n[FILE] package.json\n[DIR] dist"));
    inventory.addTree("", parseTreeReply(JSON.stringify([file("README.md"), file("package.json")]))!);
    expect(layoutLines(inventory)[0]).toBe("2 files, all at the top level:");
  });

  it("a build folder walked as the package's code: its files are listed, no longer 'not walked'", () => {
    const inventory = new Inventory();
    inventory.addListing("", parseListingReply("[FILE] package.json\n[DIR] dist\n[DIR] node_modules"));
    inventory.addTree("", parseTreeReply(JSON.stringify([file("package.json")]))!);
    inventory.addTree("dist", parseTreeReply(JSON.stringify([file("index.js"), dir("node_modules", [])]))!);
    expect(inventory.files()).toEqual(["dist/index.js", "package.json"]);
    expect([...inventory.dependencies.keys()]).toEqual(["node_modules", "dist/node_modules"]);
    expect(inventory.isWhole()).toBe(true);
    const lines = layoutLines(inventory);
    expect(lines).toContain("dist/");
    // A walk of it that was cut leaves the folder (and so the root) not whole.
    const cut = new Inventory();
    cut.addListing("", parseListingReply("[FILE] package.json\n[DIR] dist"));
    cut.addTree("", parseTreeReply(JSON.stringify([file("package.json")]))!);
    expect(cut.isWhole()).toBe(true);
    cut.addTree("dist", parseTreeReply(`${JSON.stringify([file("a.js")])}\n\n[truncated: 9 more entries]`)!);
    expect(cut.isWhole()).toBe(false);
    expect(layoutLines(cut)[0]).toMatch(/^At least 2 files/);
    expect(lines.join("\n")).toContain("named but not walked: `node_modules/`, `dist/node_modules/`.");
  });

  it("summarises a large tree with every top-level folder first, even those the tree reply never reached", () => {
    const inventory = new Inventory();
    const top = ["apps", "packages", "scripts"].map((n) => `[DIR] ${n}`).concat(["[FILE] package.json"]);
    inventory.addListing("", parseListingReply(top.join("\n")));
    const many = Array.from({ length: 400 }, (_, i) => file(`f${i}.ts`));
    const text = JSON.stringify([dir("apps", [dir("web", many)])], null, 2);
    inventory.addTree(
      "",
      parseTreeReply(`${text.slice(0, 8000)}... [${text.length - 8000} characters truncated]`)!,
    );
    const lines = layoutLines(inventory);
    expect(lines[0]).toMatch(/^At least \d+ files in 4 folders seen/);
    const body = lines.join("\n");
    expect(body).toMatch(/apps\/ {2}\(at least \d+ files\)\n {2}web\/ {2}\(at least \d+ files\)/);
    expect(body).toContain("packages/  (not listed)");
    expect(body.indexOf("scripts/")).toBeLessThan(body.indexOf("package.json"));
    expect(lines.length).toBeLessThan(40);
  });

  it("never says 0 files or 'could not be listed' for a folder holding only node_modules", () => {
    const inventory = new Inventory();
    inventory.addListing("", parseListingReply("[DIR] node_modules"));
    inventory.addTree("", parseTreeReply("[]")!);
    const names = Array.from({ length: 300 }, (_, i) => `[DIR] package-${i}`).join("\n");
    inventory.addListing(
      "node_modules",
      parseListingReply(`${names.slice(0, 3000)}... [${names.length - 3000} characters truncated]`),
    );
    const text = layoutLines(inventory).join("\n");
    expect(text).toContain("Nothing but dependency and build folders.");
    expect(text).toMatch(/`node_modules\/` \(about (2[89]0|300|310) entries\)/);
    expect(text).not.toMatch(/0 files|could not be listed/);
  });

  it("says the folder could not be listed only when no survey call succeeded", () => {
    expect(layoutLines(new Inventory())).toEqual(["The folder could not be listed."]);
  });
});
