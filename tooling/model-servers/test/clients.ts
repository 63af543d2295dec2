// Loads the REAL provider client libraries for the tests (devDependencies of this package; CommonJS
// builds, all from one copy of @langchain/core). The SDKs underneath (openai, @anthropic-ai/sdk, ollama)
// are resolved from the LangChain package that uses them, so the tests see the very copy the client uses.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const fromHere = createRequire(fileURLToPath(new URL("../package.json", import.meta.url)));
const fromPackage = (pkg: string) => createRequire(fromHere.resolve(pkg));

// The modules are used untyped here (loaded through require for one shared CommonJS copy).
// biome-ignore lint/suspicious/noExplicitAny: see above.
type Module = any;

export const langchainOpenAI: Module = fromHere("@langchain/openai");
export const langchainAnthropic: Module = fromHere("@langchain/anthropic");
export const langchainOllama: Module = fromHere("@langchain/ollama");
export const langchainTools: Module = fromHere("@langchain/core/tools");
export const langchainMessages: Module = fromHere("@langchain/core/messages");
/** The `openai` SDK that @langchain/openai uses (for its error classes). */
export const openaiSdk: Module = fromPackage("@langchain/openai")("openai");
/** The `@anthropic-ai/sdk` that @langchain/anthropic uses. */
export const anthropicSdk: Module = fromPackage("@langchain/anthropic")("@anthropic-ai/sdk");
/** The `ollama` client that @langchain/ollama uses (its browser build; it does not export ResponseError). */
export const ollamaSdk: Module = fromPackage("@langchain/ollama")("ollama/browser");
/** zod, for tool schemas. */
export const zod: Module = fromHere("zod");

/** A small tool with an object schema, as the tool loop would bind. */
export function echoTool(): Module {
  return langchainTools.tool(async ({ text }: { text: string }) => `echo: ${text}`, {
    name: "local_tools__echo",
    description: "Echo the text back.",
    schema: zod.z.object({ text: zod.z.string() }),
  });
}

/** Raw POST with fetch, for rules the client libraries would never break on their own. */
export async function post(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; json: Module; text: string }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: Module;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}
