import type { MCPToolDescriptor } from "@agentforge/mcp-permissions";
import { describe, expect, it } from "vitest";
import { createLexicalToolRanker } from "./lexical-tool-ranker.js";
import { toolSearchText } from "./mcp-tool-ranker.js";

function tool(
  identity: string,
  description: string,
  properties: Record<string, unknown> = {},
  extra: Partial<MCPToolDescriptor> = {},
): MCPToolDescriptor {
  const dot = identity.indexOf(".");
  return {
    identity,
    serverName: identity.slice(0, dot),
    toolName: identity.slice(dot + 1),
    description,
    inputSchema: { type: "object", properties },
    ...extra,
  };
}

const TOOLS: MCPToolDescriptor[] = [
  tool("files.list_directory", "Get a detailed listing of all files and directories in a specified path.", {
    path: { type: "string" },
  }),
  tool("files.read_text_file", "Read the complete contents of a file as text.", { path: { type: "string" } }),
  tool("files.move_file", "Move or rename files and directories.", {
    source: { type: "string" },
    destination: { type: "string" },
  }),
  tool("maps.maps_elevation", "Get elevation data for locations on the earth", {
    locations: { type: "array", items: { type: "object", properties: { latitude: {}, longitude: {} } } },
  }),
  tool("maps.maps_geocode", "Convert an address into geographic coordinates", { address: {} }),
  tool("hub.create_issue", "Create a new issue in a repository", {
    owner: {},
    repo: {},
    title: {},
    body: {},
  }),
  tool("hub.list_issues", "List issues in a repository with filtering options", { owner: {}, repo: {} }),
  tool("memory.create_entities", "Create multiple new entities in the knowledge graph", {
    entities: { type: "array", items: { type: "object", properties: { name: {}, observations: {} } } },
  }),
  tool("chat.postMessage", "Post a new message to a channel", { channelId: {}, text: {} }),
  tool("browser.console_messages", "Returns all console messages", {
    level: { type: "string", enum: ["error", "warning", "info"], description: "Level of the messages" },
  }),
];

async function top(query: string, limit = 3, ranker = createLexicalToolRanker(), tools = TOOLS) {
  return (await ranker.rank(query, tools, { limit })).map((r) => r.identity);
}

describe("createLexicalToolRanker", () => {
  it("matches split identifiers: list_directory, postMessage", async () => {
    expect((await top("list directory"))[0]).toBe("files.list_directory");
    expect((await top("post message"))[0]).toBe("chat.postMessage");
  });

  it("meets a request that shares no word with the tool through its vocabulary", async () => {
    expect((await top("How high above sea level is Denver?"))[0]).toBe("maps.maps_elevation");
    expect((await top("which tickets are open in our repo"))[0]).toBe("hub.list_issues");
    expect((await top("what's in this folder"))[0]).toBe("files.list_directory");
    expect((await top("Remember that Alice works at Acme"))[0]).toBe("memory.create_entities");
    // Without the vocabulary, the same requests find nothing useful.
    const plain = createLexicalToolRanker({ vocabulary: false });
    expect(await top("How high above sea level is Denver?", 3, plain)).not.toContain("maps.maps_elevation");
  });

  it("reads parameter enums and the older annotations.title", async () => {
    expect((await top("show the page's javascript warnings"))[0]).toBe("browser.console_messages");
    const titled = tool("x.t1", "", {}, { annotations: { title: "Rename a thing" } });
    expect(await top("rename", 1, undefined, [titled, ...TOOLS.slice(0, 2)])).toEqual(["x.t1"]);
  });

  it("takes synonyms of your own", async () => {
    const ranker = createLexicalToolRanker({
      synonyms: [
        ["ticket", "bug", "defect", "issue"],
        ["open", "create"],
      ],
    });
    expect((await top("open a defect", 1, ranker))[0]).toBe("hub.create_issue");
  });

  it("ranks only the tools it is given, best first, at most `limit`, ties in the given order", async () => {
    const some = TOOLS.slice(0, 3);
    const ranked = await createLexicalToolRanker().rank("file", some, { limit: 2 });
    expect(ranked).toHaveLength(2);
    expect(ranked.every((r) => some.some((t) => t.identity === r.identity))).toBe(true);
    expect(ranked[0]?.score).toBeGreaterThanOrEqual(ranked[1]?.score ?? 0);
    expect(await top("", 5)).toEqual([]);
    expect(await top("the of and", 5)).toEqual([]);
    expect(await top("zzzqqq", 5)).toEqual([]);
  });

  it("stays bounded on hostile definitions and queries", async () => {
    const cyclic: Record<string, unknown> = { type: "object" };
    cyclic.properties = { self: cyclic, other: null, list: { items: cyclic } };
    const hostile = [
      tool("h.huge", "read ".repeat(1_000_000)),
      { ...tool("h.cycle", "read a cycle"), inputSchema: cyclic },
      { ...tool("h.null", "read nothing"), inputSchema: null as unknown as Record<string, unknown> },
      { ...tool("h.str", "read"), description: 42 as unknown as string, title: {} as unknown as string },
    ];
    const ranked = await createLexicalToolRanker().rank(`read ${"word ".repeat(100_000)}`, hostile, {
      limit: 10,
    });
    expect(ranked.map((r) => r.identity).sort()).toEqual(["h.cycle", "h.huge", "h.null"]);
    expect(toolSearchText(hostile[1] as MCPToolDescriptor)).toContain("self");
  });

  it("refuses wrong options, naming the field", () => {
    expect(() => createLexicalToolRanker({ fieldWeights: { name: -1 } })).toThrow(/fieldWeights\.name/);
    expect(() => createLexicalToolRanker({ synonyms: [["a", 1 as unknown as string]] })).toThrow(/synonyms/);
  });
});
