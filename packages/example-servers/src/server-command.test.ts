import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FIRST_PARTY_SERVERS, serverCommand } from "./server-command.js";

describe("serverCommand", () => {
  it("gives this Node.js and the resolved bin of every first-party server", () => {
    for (const name of FIRST_PARTY_SERVERS) {
      const { command, args } = serverCommand(name);
      expect(command).toBe(process.execPath);
      expect(args[0]).toMatch(new RegExp(`dist[\\\\/]bin[\\\\/]${name}\\.js$`));
      expect(existsSync(args[0] as string)).toBe(true);
    }
  });

  it("adds --http with host and port, extra options, and the filesystem roots after --", () => {
    const { args } = serverCommand("filesystem", {
      root: "/srv/docs",
      roots: ["/srv/more"],
      http: { port: 8080 },
      args: ["--max-reply", "65536"],
    });
    expect(args.slice(1)).toEqual([
      "--http",
      "--port",
      "8080",
      "--max-reply",
      "65536",
      "--",
      "/srv/docs",
      "/srv/more",
    ]);
    expect(serverCommand("local-tools", { http: true }).args.slice(1)).toEqual(["--http"]);
  });

  it("names the mistake: an unknown server, a root for a server that has none", () => {
    expect(() => serverCommand("filesytem" as never)).toThrow(
      /"filesytem" is not a first-party server; expected one of local-tools, filesystem/,
    );
    expect(() => serverCommand("local-tools", { root: "/x" })).toThrow(/options of the filesystem server/);
  });
});
