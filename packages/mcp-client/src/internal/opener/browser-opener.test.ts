import { describe, expect, it } from "vitest";
import { browserCommand, loginUrlProblem } from "./browser-opener.js";

describe("loginUrlProblem", () => {
  it.each([
    "https://auth.example.com/authorize?client_id=a&state=b",
    "http://127.0.0.1:8080/authorize",
    "http://localhost:3000/authorize",
    "http://[::1]:9000/authorize",
  ])("accepts %s", (url) => {
    expect(loginUrlProblem(new URL(url))).toBeUndefined();
  });

  it.each([
    ["file:///etc/passwd", /scheme is "file:"/],
    ["javascript:alert(1)", /scheme is "javascript:"/],
    ["ms-settings:privacy", /scheme is "ms-settings:"/],
    ["http://auth.example.com/authorize", /plain http to auth\.example\.com/],
    ["http://127.0.0.1.evil.example/authorize", /plain http/],
    ["https://user:secret@auth.example.com/", /user name or password/],
  ])("refuses %s", (url, reason) => {
    const problem = loginUrlProblem(new URL(url));
    expect(problem).toMatch(reason);
    expect(problem).not.toContain("secret");
  });
});

describe("browserCommand", () => {
  const href = "https://auth.example.com/a&calc.exe|x^y?q=1&r=2";

  it("uses no shell on Windows: the URL is one argument of rundll32", () => {
    expect(browserCommand("win32", {}, href)).toEqual({
      command: "rundll32.exe",
      args: ["url.dll,FileProtocolHandler", href],
    });
  });

  it("uses open on macOS and xdg-open on a Linux desktop, nothing without one", () => {
    expect(browserCommand("darwin", {}, href)).toEqual({ command: "open", args: [href] });
    expect(browserCommand("linux", { DISPLAY: ":0" }, href)).toEqual({ command: "xdg-open", args: [href] });
    expect(browserCommand("linux", { WAYLAND_DISPLAY: "wayland-0" }, href)?.command).toBe("xdg-open");
    expect(browserCommand("linux", {}, href)).toBeUndefined();
  });
});
