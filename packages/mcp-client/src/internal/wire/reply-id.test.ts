import { describe, expect, it } from "vitest";
import { isServerInitiated, replyIdFromEdges } from "./reply-id.js";

describe("replyIdFromEdges", () => {
  it("finds the id at the end (TypeScript SDK servers)", () => {
    expect(replyIdFromEdges('{"result":{"content":[', 'xxx"}]},"jsonrpc":"2.0","id":42}')).toBe(42);
  });

  it("finds the id at the start (Python SDK and most other servers)", () => {
    expect(replyIdFromEdges('{"jsonrpc":"2.0","id":"req-7","result":{', "...}}")).toBe("req-7");
    expect(replyIdFromEdges('{"id":3,"jsonrpc":"2.0","result":{', "...}}")).toBe(3);
  });

  it("does not mistake an escaped id inside a string for the message id", () => {
    expect(replyIdFromEdges('{"result":{"text":"', 'the text ends with \\"id\\":9}"}]}}')).toBeUndefined();
  });

  it("gives undefined when neither edge names an id", () => {
    expect(replyIdFromEdges("xxxx", "yyyy")).toBeUndefined();
  });
});

describe("isServerInitiated", () => {
  it("recognises requests and notifications by their leading method", () => {
    expect(isServerInitiated('{"method":"notifications/message","params":{')).toBe(true);
    expect(isServerInitiated('{"jsonrpc":"2.0","method":"sampling/createMessage"')).toBe(true);
    expect(isServerInitiated('{"result":{"method":"x"}')).toBe(false);
  });
});
