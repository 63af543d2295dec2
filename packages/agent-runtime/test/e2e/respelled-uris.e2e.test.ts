// Deny patterns against respelled resource URIs and prompt names (hostile-input issue, item 2): a
// lenient test server reads `file:///docs/secret.txt` through every spelling a real server might
// accept, and the unmodified official `everything` server resolves `/./`. Through the executor, every
// spelling of a denied resource or prompt is refused before the server, and what an allowed read sends
// is the canonical spelling the policy decided on.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { stdioTestServer } from "@agentforge/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanup, rejectionOf, type Stack, stack } from "./harness.js";

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);
const SECRET_DOC = "demo://resource/static/document/architecture.md";

let s: Stack;
beforeAll(async () => {
  s = await stack(
    [
      stdioTestServer("lenient", { lenientResources: true }),
      stdioTestServer("everything", {}, { args: [EVERYTHING, "stdio"] }),
    ],
    {
      reader: {
        allow: ["lenient.*"],
        resources: {
          allow: ["lenient:file:///docs/*", "everything:demo://resource/static/document/*"],
          deny: ["lenient:file:///docs/secret.txt", `everything:${SECRET_DOC}`],
        },
        prompts: { allow: ["lenient.*"], deny: ["lenient.secret_prompt"] },
      },
    },
  );
}, 180_000);
afterAll(cleanup, 180_000);

async function received(): Promise<{ reads: string[]; prompts: string[] }> {
  const result = await s.executor.execute("reader", "lenient.lenient_stats", {});
  return JSON.parse(result.text);
}

describe("a denied resource under every spelling a server reads as the same", () => {
  it.each([
    "FILE:///docs/secret.txt",
    "file:///docs/%73ecret.txt",
    "file:///docs/secret.tx%74",
    "file:///docs/./secret.txt",
    "file:///docs//secret.txt",
    "file://localhost/docs/secret.txt",
    "file:/docs/secret.txt",
    "file:///docs/secret.txt?x=1",
    "file:///docs/secret.txt#top",
    "file:///docs/SECRET.txt",
    "file:///docs/secret.txt/",
    "file:///docs/sub/../secret.txt",
    "file:///docs\\secret.txt",
  ])("%s is refused before the server", async (uri) => {
    const before = (await received()).reads.length;
    const error = await rejectionOf(s.executor.readResource("reader", "lenient", uri));
    expect(error).toMatchObject({ code: "TOOL_DENIED" });
    expect((await received()).reads.length).toBe(before);
  });

  it("the test server does read the secret through those spellings (the attack is real)", async () => {
    const read = await s.manager.readResource("lenient", "file://localhost/docs/./SECRET.txt?x#y");
    expect(JSON.stringify(read.contents)).toContain("SECRET DOCUMENT");
  });

  it("an allowed read is sent in the canonical spelling the policy decided on", async () => {
    const read = await s.executor.readResource("reader", "lenient", "FILE://localhost/docs/./public.txt#x");
    expect(read.uri).toBe("file:///docs/public.txt");
    expect(read.text).toContain("public document");
    expect((await received()).reads.at(-1)).toBe("file:///docs/public.txt");
  });

  it("the official everything server: a denied document through /./ is refused, its neighbour read", async () => {
    const direct = await s.manager.readResource(
      "everything",
      "demo://resource/static/document/./architecture.md",
    );
    expect(JSON.stringify(direct.contents).length).toBeGreaterThan(100);
    for (const uri of [
      "demo://resource/static/document/./architecture.md",
      "DEMO://resource/static/document/architecture.md",
      "demo://resource/static/document/%61rchitecture.md",
    ]) {
      const error = await rejectionOf(s.executor.readResource("reader", "everything", uri));
      expect(error).toMatchObject({ code: "TOOL_DENIED" });
    }
    const allowed = await s.executor.readResource(
      "reader",
      "everything",
      "demo://resource/static/document/./features.md",
    );
    expect(allowed.uri).toBe("demo://resource/static/document/features.md");
    expect(allowed.text.length).toBeGreaterThan(20);
  });
});

describe("a denied prompt whatever the case of its name", () => {
  it.each(["secret_prompt", "Secret_Prompt", "SECRET_PROMPT"])(
    "%s is refused before the server",
    async (name) => {
      const before = (await received()).prompts.length;
      const error = await rejectionOf(s.executor.getPrompt("reader", "lenient", name));
      expect(error).toMatchObject({ code: "TOOL_DENIED" });
      expect((await received()).prompts.length).toBe(before);
    },
  );

  it("an allowed prompt is still served", async () => {
    const prompt = await s.executor.getPrompt("reader", "lenient", "public_prompt");
    expect(prompt.text).toContain("the public_prompt");
  });
});
