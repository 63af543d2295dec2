// The package manager a project uses, from the lockfile it keeps (or package.json's packageManager).

/** A package manager and how to install a project's dependencies with it. */
export interface PackageManager {
  name: string;
  /** What `install` does, when it is more than installing dependencies. */
  installNote?: string;
  /** The file that says so. */
  evidence: string;
  install: string;
  /** How a package.json/composer.json script runs with it (`pnpm run build`). */
  run?: (script: string) => string;
}

const LOCKFILES: [string, Omit<PackageManager, "evidence">][] = [
  ["pnpm-lock.yaml", { name: "pnpm", install: "pnpm install", run: (s) => `pnpm run ${s}` }],
  ["yarn.lock", { name: "Yarn", install: "yarn install", run: (s) => `yarn ${s}` }],
  ["bun.lock", { name: "Bun", install: "bun install", run: (s) => `bun run ${s}` }],
  ["bun.lockb", { name: "Bun", install: "bun install", run: (s) => `bun run ${s}` }],
  ["package-lock.json", { name: "npm", install: "npm ci", run: (s) => `npm run ${s}` }],
  ["npm-shrinkwrap.json", { name: "npm", install: "npm ci", run: (s) => `npm run ${s}` }],
  ["uv.lock", { name: "uv", install: "uv sync" }],
  ["poetry.lock", { name: "Poetry", install: "poetry install" }],
  ["pdm.lock", { name: "PDM", install: "pdm install" }],
  ["Pipfile.lock", { name: "Pipenv", install: "pipenv install" }],
  [
    "Cargo.lock",
    { name: "Cargo", install: "cargo build", installNote: "fetches the dependencies and builds" },
  ],
  ["go.sum", { name: "Go modules", install: "go mod download", installNote: "downloads the modules" }],
  [
    "composer.lock",
    { name: "Composer", install: "composer install", run: (s) => `composer run-script ${s}` },
  ],
  ["Gemfile.lock", { name: "Bundler", install: "bundle install" }],
];

/** The lockfile names recognised, in the order they are looked for. */
export const LOCKFILE_NAMES: readonly string[] = LOCKFILES.map(([file]) => file);

/** Every package manager whose lockfile is among the root's files, in the order above. */
export function packageManagersFrom(rootFiles: readonly string[]): PackageManager[] {
  const present = new Set(rootFiles);
  const seen = new Set<string>();
  return LOCKFILES.flatMap(([file, pm]) => {
    if (!present.has(file) || seen.has(pm.name)) return [];
    seen.add(pm.name);
    return [{ ...pm, evidence: file }];
  });
}

/** The JavaScript package manager for package.json scripts: lockfile, else `packageManager`, else npm. */
export function javascriptManager(
  rootFiles: readonly string[],
  packageManagerField?: string,
): PackageManager {
  const fromLock = packageManagersFrom(rootFiles).find((pm) => pm.run && pm.name !== "Composer");
  if (fromLock) return fromLock;
  const named = /^(pnpm|yarn|bun|npm)@/.exec(packageManagerField ?? "")?.[1];
  const byName = LOCKFILES.find(([, pm]) => pm.name.toLowerCase() === named)?.[1];
  if (byName)
    return {
      ...byName,
      install: byName.install.replace(" ci", " install"),
      evidence: "package.json packageManager",
    };
  return {
    name: "npm",
    install: "npm install",
    run: (s) => `npm run ${s}`,
    evidence: "package.json, no lockfile",
  };
}
