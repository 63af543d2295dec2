/**
 * What a login may open: the authorization URL comes from the authorization server's metadata, so it
 * is untrusted. Only `https:` (and `http:` to this machine's loopback) is ever handed on, and it is
 * handed to the platform's opener as one argument of a process started without a shell.
 */

/** Host names that stay on this machine (`http:` is accepted only for these). */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (host === "[::1]") return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Why `url` must not be opened as a login page, or undefined when it may be. The reason names only the
 * scheme (and host), never the whole URL, which may carry anything the authorization server chose.
 */
export function loginUrlProblem(url: URL): string | undefined {
  if (url.protocol === "https:") {
    if (url.username || url.password) return "it carries a user name or password";
    return undefined;
  }
  if (url.protocol === "http:") {
    if (!isLoopbackHost(url.hostname)) {
      return `it is plain http to ${url.hostname}, which is not this machine (only https, or http to loopback, is opened)`;
    }
    if (url.username || url.password) return "it carries a user name or password";
    return undefined;
  }
  return `its scheme is "${url.protocol.slice(0, 32)}" (only https, or http to loopback, is opened)`;
}

/** The program and arguments that open `href` in the desktop's browser, or undefined without a desktop. */
export function browserCommand(
  platform: NodeJS.Platform,
  env: NodeJS.ProcessEnv,
  href: string,
): { command: string; args: string[] } | undefined {
  // Never `cmd /c start`: cmd.exe parses `&`, `|`, `^` in its arguments. rundll32 hands the URL to the
  // registered protocol handler without a shell.
  if (platform === "win32") return { command: "rundll32.exe", args: ["url.dll,FileProtocolHandler", href] };
  if (platform === "darwin") return { command: "open", args: [href] };
  if (env.DISPLAY || env.WAYLAND_DISPLAY) return { command: "xdg-open", args: [href] };
  return undefined;
}
