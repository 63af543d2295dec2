// The filesystem server's sandbox: every path is resolved to its real path through every symlink and
// must lie inside a root's real path, compared per path segment. Files and directories are then opened
// without following a final symlink, and what was opened is checked again (on Linux through
// /proc/self/fd, which names exactly the opened inode), so a symlink swapped in after the check is
// refused rather than followed. Walks open each child directory relative to its verified parent
// (`/proc/self/fd/<parent>/<name>` with O_NOFOLLOW, the equivalent of openat), so no directory swap during
// a walk can lead outside.
import {
  closeSync,
  constants,
  type Dirent,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  type Stats,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { isMainThread } from "node:worker_threads";

/** Longest path (in characters) the sandbox accepts. */
export const MAX_PATH_LENGTH = 4096;

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const FILE_FLAGS = constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK;
const DIR_FLAGS = constants.O_RDONLY | O_NOFOLLOW | O_DIRECTORY;

/** Options of `Sandbox.create`. */
export interface SandboxOptions {
  /**
   * The process does nothing else with relative paths (true for the bins): lets `lstatChildren` move
   * the working directory for the duration of a synchronous loop. Never set it when embedding.
   */
  exclusiveProcess?: boolean;
}

/** Why the sandbox refused a path; the message names the path as the caller gave it, nothing more. */
export class SandboxError extends Error {
  override readonly name = "SandboxError";
}

/** A path that passed the sandbox: `real` is its real path (it may not exist yet). */
export interface ResolvedPath {
  /** The path as the caller gave it (for messages). */
  requested: string;
  /** Real path, inside `root`. */
  real: string;
  /** Real path of the root that contains it. */
  root: string;
}

/** An open, verified directory. */
export interface DirectoryHandle {
  fd: number;
  /** Its real path. */
  path: string;
  /** `dev:ino`, for cycle detection in walks. */
  key: string;
}

/** An open, verified regular file. */
export interface FileHandle {
  fd: number;
  path: string;
  stats: Stats;
}

/** Quote a caller-supplied path for a message: escaped, and shortened when very long. */
export function showPath(value: string): string {
  const short = value.length > 160 ? `${value.slice(0, 100)}…${value.slice(-40)}` : value;
  return JSON.stringify(short);
}

const errnoOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;

function isInside(real: string, root: string): boolean {
  if (real === root) return true;
  return real.startsWith(root.endsWith(sep) ? root : root + sep);
}

let procSupport: boolean | undefined;

/** Whether /proc/self/fd names opened files (Linux): checked once per process. */
function hasProcFd(probeDirectory: string): boolean {
  if (procSupport !== undefined) return procSupport;
  let fd: number | undefined;
  try {
    fd = openSync(probeDirectory, DIR_FLAGS);
    procSupport = readlinkSync(`/proc/self/fd/${fd}`) === probeDirectory;
  } catch {
    procSupport = false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return procSupport;
}

/** The sandbox of a filesystem server: a set of root directories and the checks that keep every access inside. */
export class Sandbox {
  /** Real paths of the roots, in the order given. */
  readonly roots: readonly string[];
  private readonly proc: boolean;
  /** A descriptor of the working directory, to return to it after `lstatChildren` (exclusive mode). */
  private readonly homeFd: number | undefined;
  private readonly options: SandboxOptions;

  private constructor(roots: string[], options: SandboxOptions) {
    this.roots = roots;
    this.options = options;
    this.proc = hasProcFd(roots[0] as string);
    if (this.proc && options.exclusiveProcess === true && isMainThread) {
      try {
        this.homeFd = openSync(".", DIR_FLAGS);
      } catch {
        this.homeFd = undefined;
      }
    }
  }

  /**
   * Resolve the roots (each must exist and be a directory) and build the sandbox. Throws an `Error`
   * naming the first bad root.
   */
  static create(roots: readonly string[], options: SandboxOptions = {}): Sandbox {
    if (!Array.isArray(roots) || roots.length === 0) {
      throw new Error("no allowed directory: give at least one root directory");
    }
    const real: string[] = [];
    for (const root of roots) {
      if (typeof root !== "string" || root.trim() === "") {
        throw new Error(`allowed directory must be a non-empty string, got ${JSON.stringify(root)}`);
      }
      if (root.includes("\0")) throw new Error(`allowed directory ${showPath(root)} contains a null byte`);
      const absolute = resolve(expandHome(root));
      let resolved: string;
      try {
        resolved = realpathSync.native(absolute);
      } catch (error) {
        const code = errnoOf(error);
        throw new Error(
          code === "ENOENT"
            ? `allowed directory ${showPath(root)} does not exist`
            : `allowed directory ${showPath(root)} cannot be resolved (${code ?? String(error)})`,
        );
      }
      if (!lstatSync(resolved).isDirectory()) {
        throw new Error(`allowed directory ${showPath(root)} is not a directory`);
      }
      if (!real.includes(resolved)) real.push(resolved);
    }
    return new Sandbox(real, options);
  }

  /**
   * A sandbox with fewer roots: each of `roots` must resolve (through this sandbox) to a directory
   * inside one of this sandbox's roots. Narrowing never widens: a root outside throws `SandboxError`.
   */
  narrow(roots: readonly string[]): Sandbox {
    const real: string[] = [];
    for (const root of roots) {
      const target = this.resolve(root);
      let isDirectory = false;
      try {
        isDirectory = lstatSync(target.real).isDirectory();
      } catch {
        // missing: refused below
      }
      if (!isDirectory)
        throw new SandboxError(`${showPath(root)} is not a directory inside the allowed ones`);
      if (!real.includes(target.real)) real.push(target.real);
    }
    return new Sandbox(real, this.options);
  }

  /** True if a real path lies inside one of the roots (per path segment). */
  contains(real: string): boolean {
    return this.roots.some((root) => isInside(real, root));
  }

  /**
   * Resolve a caller-supplied path (absolute, relative to the first root, or `~/...`) to its real path
   * and check that it lies inside a root. A path that does not exist resolves through its deepest
   * existing ancestor. Throws `SandboxError`.
   */
  resolve(requested: unknown, argument = "path"): ResolvedPath {
    if (typeof requested !== "string") {
      throw new SandboxError(
        `"${argument}" must be a string path, got ${requested === null ? "null" : typeof requested}`,
      );
    }
    if (requested === "") throw new SandboxError(`"${argument}" must not be empty`);
    if (requested.includes("\0")) {
      throw new SandboxError(
        `Access denied: ${showPath(requested)} contains a null byte, which no path may contain`,
      );
    }
    if (requested.length > MAX_PATH_LENGTH) {
      throw new SandboxError(
        `Access denied: ${showPath(requested)} is ${requested.length} characters long; paths are limited to ${MAX_PATH_LENGTH}`,
      );
    }
    if (sep === "/" && /^[A-Za-z]:(?:[\\/]|$)/.test(requested)) {
      throw new SandboxError(
        `Access denied: ${showPath(requested)} is a Windows path; this server runs on a POSIX system`,
      );
    }
    const expanded = expandHome(requested);
    const lexical = isAbsolute(expanded) ? resolve(expanded) : resolve(this.roots[0] as string, expanded);
    const lexicallyInside = this.contains(lexical);
    const outside = () =>
      new SandboxError(
        lexicallyInside
          ? `Access denied: ${showPath(requested)} leads outside the allowed directories through a symbolic link`
          : `Access denied: ${showPath(requested)} is outside the allowed directories (${this.roots.join(", ")})`,
      );

    // Deepest existing ancestor, resolved through every symlink.
    let ancestor = lexical;
    const tail: string[] = [];
    let firstError: string | undefined;
    let real: string | undefined;
    for (;;) {
      try {
        real = realpathSync.native(ancestor);
        break;
      } catch (error) {
        firstError ??= errnoOf(error) ?? "EIO";
        const parent = dirname(ancestor);
        if (parent === ancestor) throw outside();
        tail.unshift(ancestor.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
        ancestor = parent;
      }
    }
    if (!this.contains(real)) throw outside();
    if (firstError !== undefined && firstError !== "ENOENT" && firstError !== "ENOTDIR") {
      // The failure happened at or below an ancestor inside a root: safe to say what it was.
      throw new SandboxError(`Cannot resolve ${showPath(requested)}: ${describeErrno(firstError)}`);
    }
    const full = tail.length > 0 ? join(real, ...tail) : real;
    if (!this.contains(full)) throw outside();
    const root = this.roots.find((r) => isInside(full, r)) as string;
    return { requested, real: full, root };
  }

  /** Where the kernel says an open descriptor points (Linux), or undefined. */
  private fdPath(fd: number): string | undefined {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return undefined;
    }
  }

  /** Check that an opened descriptor is the expected real path; close it and throw otherwise. */
  private verifyOpened(fd: number, target: ResolvedPath, stats: Stats): void {
    let ok: boolean;
    if (this.proc) {
      ok = this.fdPath(fd) === target.real;
    } else {
      // Without /proc: the path must still resolve to itself and name the same inode.
      try {
        const again = realpathSync.native(target.real);
        const now = lstatSync(again);
        ok = again === target.real && now.ino === stats.ino && now.dev === stats.dev;
      } catch {
        ok = false;
      }
    }
    if (!ok) {
      closeSync(fd);
      throw new SandboxError(
        `Access denied: ${showPath(target.requested)} changed while it was being opened (a symbolic link was swapped in); try again`,
      );
    }
  }

  private openRaw(target: ResolvedPath, flags: number): number {
    try {
      return openSync(target.real, flags);
    } catch (error) {
      const code = errnoOf(error);
      if (code === "ELOOP" || code === "EMLINK") {
        throw new SandboxError(
          `Access denied: ${showPath(target.requested)} changed while it was being opened (a symbolic link was swapped in); try again`,
        );
      }
      throw new SandboxError(`Cannot open ${showPath(target.requested)}: ${describeErrno(code)}`);
    }
  }

  /** Open a resolved path as a regular file (never following a final symlink) and verify it. */
  openFile(target: ResolvedPath): FileHandle {
    // Devices, sockets and pipes are refused before opening: opening some devices has side effects.
    const before = lstatSync(target.real, { throwIfNoEntry: false });
    if (before && !before.isFile() && !before.isDirectory() && !before.isSymbolicLink()) {
      throw new SandboxError(
        `${showPath(target.requested)} is not a regular file (a device, socket or pipe) and cannot be read`,
      );
    }
    const fd = this.openRaw(target, FILE_FLAGS);
    const stats = fstatSync(fd);
    this.verifyOpened(fd, target, stats);
    if (!stats.isFile()) {
      closeSync(fd);
      throw new SandboxError(
        stats.isDirectory()
          ? `${showPath(target.requested)} is a directory, not a file; use list_directory or directory_tree`
          : `${showPath(target.requested)} is not a regular file (a device, socket or pipe) and cannot be read`,
      );
    }
    return { fd, path: target.real, stats };
  }

  /** Open a resolved path as a directory (never following a final symlink) and verify it. */
  openDirectory(target: ResolvedPath): DirectoryHandle {
    let fd: number;
    try {
      fd = openSync(target.real, DIR_FLAGS);
    } catch (error) {
      const code = errnoOf(error);
      // O_NOFOLLOW | O_DIRECTORY on a symlink fails with ENOTDIR on Linux: tell the two apart.
      const swapped =
        code === "ELOOP" ||
        (code === "ENOTDIR" && lstatSync(target.real, { throwIfNoEntry: false })?.isFile() !== true);
      if (code === "ENOTDIR" && !swapped) {
        throw new SandboxError(`${showPath(target.requested)} is a file, not a directory`);
      }
      if (swapped) {
        throw new SandboxError(
          `Access denied: ${showPath(target.requested)} changed while it was being opened (a symbolic link was swapped in); try again`,
        );
      }
      throw new SandboxError(`Cannot open ${showPath(target.requested)}: ${describeErrno(code)}`);
    }
    const stats = fstatSync(fd);
    this.verifyOpened(fd, target, stats);
    return { fd, path: target.real, key: `${stats.dev}:${stats.ino}` };
  }

  /**
   * Metadata of a resolved path without following a final symlink: through an opened descriptor when
   * possible, else `lstat` re-verified against the sandbox.
   */
  statPath(target: ResolvedPath): Stats {
    let fd: number | undefined;
    const before = lstatSync(target.real, { throwIfNoEntry: false });
    const openable = !before || before.isFile() || before.isDirectory() || before.isSymbolicLink();
    try {
      // Devices, sockets and pipes are not opened (side effects); they take the lstat path below.
      if (openable) fd = openSync(target.real, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch (error) {
      const code = errnoOf(error);
      if (code === "ELOOP") {
        throw new SandboxError(
          `Access denied: ${showPath(target.requested)} changed while it was being opened (a symbolic link was swapped in); try again`,
        );
      }
      if (code !== "EACCES" && code !== "EPERM") {
        throw new SandboxError(`Cannot read ${showPath(target.requested)}: ${describeErrno(code)}`);
      }
    }
    if (fd !== undefined) {
      const stats = fstatSync(fd);
      this.verifyOpened(fd, target, stats);
      closeSync(fd);
      return stats;
    }
    // Unreadable or not openable: lstat, then make sure the path still resolves to itself.
    const stats = lstatSync(target.real, { throwIfNoEntry: false });
    if (!stats)
      throw new SandboxError(`Cannot read ${showPath(target.requested)}: ${describeErrno("ENOENT")}`);
    const again = this.resolve(target.real);
    if (again.real !== target.real) {
      throw new SandboxError(
        `Access denied: ${showPath(target.requested)} changed during the call; try again`,
      );
    }
    return stats;
  }

  /** Close a descriptor, ignoring errors. */
  close(fd: number): void {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
  }

  /** Entries of an open directory (exactly the opened one on Linux). */
  readDirectory(dir: DirectoryHandle): Dirent[] {
    if (this.proc) return readdirSync(`/proc/self/fd/${dir.fd}`, { withFileTypes: true });
    const entries = readdirSync(dir.path, { withFileTypes: true });
    const now = lstatSync(dir.path, { throwIfNoEntry: false });
    if (!now || `${now.dev}:${now.ino}` !== dir.key) return [];
    return entries;
  }

  /**
   * `lstat` of many children of an open directory (undefined for those that vanished), each looked up
   * in exactly that directory. In an exclusive process this is `fstatat` done the only way Node allows:
   * the working directory is moved into the opened directory for the (synchronous) loop and back
   * before returning, which halves the cost of going through /proc for every name.
   */
  lstatChildren(dir: DirectoryHandle, names: readonly string[]): (Stats | undefined)[] {
    if (this.homeFd === undefined) return names.map((name) => this.lstatChild(dir, name));
    try {
      process.chdir(`/proc/self/fd/${dir.fd}`);
    } catch {
      return names.map((name) => this.lstatChild(dir, name));
    }
    try {
      return names.map((name) => {
        try {
          return lstatSync(name, { throwIfNoEntry: false });
        } catch {
          return undefined;
        }
      });
    } finally {
      process.chdir(`/proc/self/fd/${this.homeFd}`);
    }
  }

  /** `lstat` of a child of an open directory, or undefined when it vanished. */
  lstatChild(dir: DirectoryHandle, name: string): Stats | undefined {
    const path = this.proc ? `/proc/self/fd/${dir.fd}/${name}` : join(dir.path, name);
    try {
      return lstatSync(path, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
  }

  /**
   * Open a child directory of an open directory without following symlinks (openat-like on Linux).
   * Returns undefined if it is not a directory any more, or cannot be opened.
   */
  openChildDirectory(dir: DirectoryHandle, name: string): DirectoryHandle | undefined {
    const path = join(dir.path, name);
    let fd: number;
    try {
      fd = openSync(this.proc ? `/proc/self/fd/${dir.fd}/${name}` : path, DIR_FLAGS);
    } catch {
      return undefined;
    }
    const stats = fstatSync(fd);
    if (!this.proc) {
      let ok = false;
      try {
        ok = realpathSync.native(path) === path && this.contains(path);
      } catch {
        ok = false;
      }
      if (!ok) {
        closeSync(fd);
        return undefined;
      }
    }
    return { fd, path, key: `${stats.dev}:${stats.ino}` };
  }
}

/** Replace a leading `~` with the home directory. */
export function expandHome(path: string): string {
  if (path === "~" || path.startsWith("~/")) return join(homedir(), path.slice(1));
  return path;
}

/** A readable explanation of an errno code, without any path. */
export function describeErrno(code: string | undefined): string {
  switch (code) {
    case "ENOENT":
      return "no such file or directory";
    case "ENOTDIR":
      return "a part of the path is a file, not a directory";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "ELOOP":
      return "too many levels of symbolic links (a symlink loop)";
    case "ENAMETOOLONG":
      return "a name in the path is longer than the system allows";
    case "EISDIR":
      return "it is a directory";
    case "EMFILE":
    case "ENFILE":
      return "too many open files; try again";
    default:
      return code ? `system error ${code}` : "unknown error";
  }
}
