// The documentation corpus: real published packages and repositories nobody here wrote, each with the
// facts a reader of its generated document needs, written in our own words. Nothing of theirs is in this
// repository: npm packages are pinned devDependencies of the demo (catalog `docs-corpus`, installed under
// `corpus-*` aliases and never imported), the other ecosystems come from Debian packages that ship the
// upstream sources (Rust crates, Go modules, Python distributions, a Java source tarball). The e2e test
// (docs-corpus.e2e.test.ts) copies each to a temporary folder and runs `agentforge docs` on it.

/**
 * A section of the generated document a fact is checked in: `Title` is the first line's text, `Head` the
 * title and the Purpose section together.
 */
export type CorpusSection = "Title" | "Head" | "Purpose" | "Layout" | "Key files" | "How to run";

/** One thing a reader needs from the document, and how the test recognises it. */
export interface CorpusFact {
  /** What the reader learns, in our words. */
  says: string;
  section: CorpusSection;
  /** The section matches this. */
  has?: RegExp;
  /** The section does not match this. */
  lacks?: RegExp;
  /**
   * A key file listed ahead of every test, fixture, example, benchmark and type-test file (an entry point
   * comes first). The path as the document names it, relative to the package's folder.
   */
  entry?: string;
  /**
   * Set when the document is known not to hold this fact yet: why. The test counts it as missed and
   * fails once it holds (so the mark is removed when the gap closes).
   */
  gap?: string;
}

/** Where an entry's files come from. */
export type CorpusSource =
  | {
      kind: "npm";
      /** The devDependency alias in apps/demo/package.json (`corpus-execa`). */
      alias: string;
      /** A folder inside the package documented on its own (a project it vendors). */
      subfolder?: string;
    }
  | {
      kind: "debian";
      /** The Debian package, and the version the facts were written against. */
      deb: string;
      version: string;
      /**
       * What is copied into the folder documented: a path the package installs, to a relative place
       * (`.` for the folder itself). `.gz` files are decompressed; `.tar.gz` archives are extracted.
       */
      copy: { from: string; to: string }[];
    };

/** One package or repository of the corpus. */
export interface CorpusEntry {
  /** Also the name of the folder documented (the document's fallback title). */
  id: string;
  /** The upstream version. */
  version: string;
  language: "JavaScript" | "TypeScript" | "Python" | "Go" | "Rust" | "Java";
  /** Why it is in the corpus: the shape it brings. */
  shape: string;
  source: CorpusSource;
  facts: CorpusFact[];
}

// Fact builders: short, so each entry reads as a list of what the reader needs.
const title = (has: RegExp, says = "the title is the project's name"): CorpusFact => ({
  says,
  section: "Title",
  has,
});
const purpose = (has: RegExp, says: string): CorpusFact => ({ says, section: "Purpose", has });
const notPurpose = (lacks: RegExp, says: string): CorpusFact => ({ says, section: "Purpose", lacks });
const run = (has: RegExp, says: string): CorpusFact => ({ says, section: "How to run", has });
const notRun = (lacks: RegExp, says: string): CorpusFact => ({ says, section: "How to run", lacks });
const entry = (
  file: string,
  says = `\`${file}\` is named as an entry point, ahead of tests and examples`,
) => ({
  says,
  section: "Key files" as const,
  entry: file,
});
const key = (has: RegExp, says: string): CorpusFact => ({ says, section: "Key files", has });
const layout = (has: RegExp, says: string): CorpusFact => ({ says, section: "Layout", has });

const npm = (alias: string, subfolder?: string): CorpusSource => ({
  kind: "npm",
  alias,
  ...(subfolder ? { subfolder } : {}),
});
const crate = (deb: string, version: string, folder: string): CorpusSource => ({
  kind: "debian",
  deb,
  version,
  copy: [{ from: `/usr/share/cargo/registry/${folder}`, to: "." }],
});
/** A Go module from /usr/share/gocode, with the README Debian moves to /usr/share/doc (when it keeps one). */
const goModule = (deb: string, version: string, importPath: string, readme?: string): CorpusSource => ({
  kind: "debian",
  deb,
  version,
  copy: [
    { from: `/usr/share/gocode/src/${importPath}`, to: "." },
    ...(readme ? [{ from: `/usr/share/doc/${deb}/${readme}`, to: "README.md" }] : []),
  ],
});
/** A Python distribution as site-packages holds it: the import package(s) and the metadata folder. */
const pythonDist = (deb: string, version: string, paths: string[]): CorpusSource => ({
  kind: "debian",
  deb,
  version,
  copy: paths.map((p) => ({ from: `/usr/lib/python3/dist-packages/${p}`, to: p })),
});

export const CORPUS: CorpusEntry[] = [
  // ---- npm packages (published tarballs) ----
  {
    id: "execa",
    version: "10.2.1",
    language: "JavaScript",
    shape: "README opening with a <picture> logo, a badge, a blockquote tagline and an HTML sponsor block",
    source: npm("corpus-execa"),
    facts: [
      title(/^execa$/i),
      purpose(/process execution|runs commands/i, "it runs commands and child processes from code"),
      notPurpose(/sponsor|thanks|supported by the community/i, "the sponsor block is not the purpose"),
      run(/`npm install execa`/, "how to install it"),
      entry("index.js"),
    ],
  },
  {
    id: "yaml",
    version: "2.9.1",
    language: "JavaScript",
    shape: "the build output is all the code there is (dist/), a README opening with a code span",
    source: npm("corpus-yaml"),
    facts: [
      title(/^yaml$/i),
      purpose(/YAML/, "it is a YAML library"),
      purpose(/pars|stringif|serializ/i, "it parses and writes YAML"),
      run(/`npm install yaml`/, "how to install it"),
      entry("dist/index.d.ts", "the typed entry point in dist/ is read"),
      key(/`(parse|stringify|parseDocument)`/, "the library's API (parse, stringify, …) is named"),
      layout(/^dist\/( {2}\(|$)/m, "dist/ is walked like the rest of the package"),
    ],
  },
  {
    id: "commander",
    version: "15.1.0",
    language: "JavaScript",
    shape: "a well-formed README (the case that already read well)",
    source: npm("corpus-commander"),
    facts: [
      title(/^commander(\.js)?$/i),
      purpose(/command-line (interfaces|programs)/i, "it builds command-line interfaces for Node.js"),
      run(/`npm install commander`/, "how to install it"),
      entry("index.js"),
      key(/`lib\/command\.js`/, "the Command class's module is a key file"),
    ],
  },
  {
    id: "express",
    version: "5.3.0",
    language: "JavaScript",
    shape: "README opening with a linked <picture> logo, a bold tagline, then a table of contents",
    source: npm("corpus-express"),
    facts: [
      title(/^express$/i),
      purpose(/web framework/i, "it is a web framework for Node.js"),
      run(/`npm install express`/, "how to install it"),
      entry("index.js"),
      key(/`lib\/express\.js`/, "the application factory's module is a key file"),
    ],
  },
  {
    id: "chalk",
    version: "6.0.1",
    language: "JavaScript",
    shape: "README title is an HTML <h1> holding only a logo; an IMPORTANT note before any description",
    source: npm("corpus-chalk"),
    facts: [
      title(/^chalk$/i),
      purpose(/terminal string styling|colou?r/i, "it styles strings for the terminal"),
      notPurpose(/IMPORTANT|ESM/, "the ESM note is not the purpose"),
      run(/`npm install chalk`/, "how to install it"),
      entry("source/index.js"),
    ],
  },
  {
    id: "dotenv",
    version: "18.0.10",
    language: "JavaScript",
    shape: "code only in dist/, a bin, README in HTML and Markdown",
    source: npm("corpus-dotenv"),
    facts: [
      title(/^dotenv$/i),
      purpose(/environment variables/i, "it loads environment variables from a .env file"),
      run(/`npm install dotenv/, "how to install it"),
      run(/`dotenv`|`npx dotenv/, "its command-line tool"),
      entry("dist/index.cjs", "the main entry point in dist/ is read"),
    ],
  },
  {
    id: "zod",
    version: "4.6.7",
    language: "TypeScript",
    shape: "a large published tree (840 files): sources, builds and subpath entry points side by side",
    source: npm("corpus-zod"),
    facts: [
      title(/^zod$/i),
      purpose(/schema/i, "it declares and validates schemas"),
      purpose(/TypeScript/, "it is TypeScript-first"),
      run(/`npm install zod`/, "how to install it"),
      key(/`(index\.js|index\.cjs|index\.d\.ts|src\/index\.ts)`/, "the root entry point is a key file"),
    ],
  },
  {
    id: "nanoid",
    version: "6.0.2",
    language: "JavaScript",
    shape: "a multi-line <img> logo and a language bar before the description; no install command",
    source: npm("corpus-nanoid"),
    facts: [
      title(/^nano ?id$/i),
      purpose(/unique string ID generator/i, "it generates unique string IDs"),
      notPurpose(/<img|logo/i, "the logo is not the purpose"),
      run(/`(npm install|npm i|pnpm add|yarn add) nanoid`/, "how to install it"),
      run(/`nanoid`/, "its command-line tool"),
      entry("index.js"),
    ],
  },
  {
    id: "semver",
    version: "7.8.6",
    language: "JavaScript",
    shape: "a man-page style title, functions/ classes/ ranges/ folders and a bin",
    source: npm("corpus-semver"),
    facts: [
      title(/^semver\b/i),
      purpose(/semantic version/i, "it parses and compares semantic versions"),
      run(/`npm install semver`/, "how to install it"),
      run(/`semver`/, "its command-line tool"),
      entry("index.js"),
    ],
  },
  {
    id: "node-gyp",
    version: "13.1.0",
    language: "JavaScript",
    shape: "a tool with a bin, a vendored Python project (gyp/) and root test scripts",
    source: npm("corpus-node-gyp"),
    facts: [
      title(/node-gyp/),
      purpose(/native addon/i, "it builds native addon modules for Node.js"),
      run(/`npm install -g node-gyp`/, "how to install it"),
      run(/`node-gyp`/, "its command-line tool"),
      entry("bin/node-gyp.js"),
      entry("lib/node-gyp.js"),
    ],
  },
  {
    id: "gyp-next",
    version: "0.22.3",
    language: "Python",
    shape: "a docs-heavy Python project (pyproject.toml, docs/ of Markdown) vendored inside node-gyp",
    source: npm("corpus-node-gyp", "gyp"),
    facts: [
      title(/gyp/i),
      purpose(/GYP|build system/i, "it is the GYP meta-build system"),
      run(/`pip install \.`|`gyp`/, "how to install or run it"),
      entry("pylib/gyp/__init__.py"),
      key(/`docs\/[\w-]+\.md`/, "its documentation pages are key files"),
    ],
  },

  // ---- Rust crates (crates.io tarballs as Debian ships them) ----
  {
    id: "anyhow",
    version: "1.0.69",
    language: "Rust",
    shape: "a title with an entity and a kaomoji, a console block of program output, the dependency line",
    source: crate("librust-anyhow-dev", "1.0.69-1", "anyhow-1.0.69"),
    facts: [
      title(/^anyhow$/i),
      purpose(/error/i, "it provides an error type for applications"),
      run(/`anyhow = "1\.0"`/, "the dependency line to add to Cargo.toml"),
      notRun(/Caused by|Failed to read|No such file/, "program output is not a command"),
      notRun(/`cargo run`/, "a library has no binary to run"),
      entry("src/lib.rs"),
    ],
  },
  {
    id: "thiserror",
    version: "1.0.38",
    language: "Rust",
    shape: "the README's heading is a tagline, not the crate's name",
    source: crate("librust-thiserror-dev", "1.0.38-1", "thiserror-1.0.38"),
    facts: [
      title(/thiserror/i),
      purpose(/derive/i, "it derives the standard Error trait"),
      run(/`thiserror = "1\.0"`/, "the dependency line to add to Cargo.toml"),
      notRun(/`cargo run`/, "a library has no binary to run"),
      entry("src/lib.rs"),
    ],
  },
  {
    id: "serde_json",
    version: "1.0.87",
    language: "Rust",
    shape: "a title followed by reference-style badges, badge link definitions before the prose",
    source: crate("librust-serde-json-dev", "1.0.87-1", "serde_json-1.0.87"),
    facts: [
      title(/^serde[ _]json$/i),
      purpose(/JSON/, "it handles JSON"),
      notPurpose(/shields\.io|Build Status/, "a badge definition is not the purpose"),
      run(/`serde_json = "1\.0"`/, "the dependency line to add to Cargo.toml"),
      entry("src/lib.rs"),
    ],
  },
  {
    id: "log",
    version: "0.4.17",
    language: "Rust",
    shape: "a small crate with benches/ and a licence header in lib.rs",
    source: crate("librust-log-dev", "0.4.17-3", "log-0.4.17"),
    facts: [
      title(/^log$/i),
      purpose(/logging \*?facade/i, "it is a logging facade"),
      run(/`log = "0\.4"`/, "the dependency line to add to Cargo.toml"),
      entry("src/lib.rs"),
    ],
  },

  // ---- Go modules (Debian's gocode tree; README from /usr/share/doc where Debian keeps it) ----
  {
    id: "mux",
    version: "1.8.0",
    language: "Go",
    shape: "root *.go files beside many tests, licence headers above the package clause",
    source: goModule("golang-github-gorilla-mux-dev", "1.8.0-1", "github.com/gorilla/mux", "README.md.gz"),
    facts: [
      title(/mux/),
      purpose(/router|dispatcher/i, "it routes HTTP requests to handlers"),
      run(/`go get (-u )?github\.com\/gorilla\/mux`/, "how to add it to a Go project"),
      entry("mux.go"),
      entry("route.go"),
    ],
  },
  {
    id: "logrus",
    version: "1.9.0",
    language: "Go",
    shape: "a README with no install command; the module path only in go.mod",
    source: goModule(
      "golang-github-sirupsen-logrus-dev",
      "1.9.0-1",
      "github.com/sirupsen/logrus",
      "README.md.gz",
    ),
    facts: [
      title(/^logrus$/i),
      purpose(/structured logger/i, "it is a structured logger"),
      run(/`go get github\.com\/sirupsen\/logrus(@latest)?`/, "how to add it to a Go project"),
      entry("logrus.go"),
    ],
  },
  {
    id: "color",
    version: "1.7.0",
    language: "Go",
    shape: "a block (/* */) package doc comment, no go.mod",
    source: goModule("golang-github-fatih-color-dev", "1.7.0-1", "github.com/fatih/color", "README.md.gz"),
    facts: [
      title(/^color$/i),
      purpose(/colou?ri[sz]ed output|ANSI/i, "it prints colourised output with ANSI codes"),
      run(/`go get github\.com\/fatih\/color`/, "how to add it to a Go project"),
      entry("color.go"),
    ],
  },
  {
    id: "urfave-cli",
    version: "2.3.0",
    language: "Go",
    shape: "a setext title, the install command behind a `$ GO111MODULE=on` prompt",
    source: goModule("golang-github-urfave-cli-v2-dev", "2.3.0-2", "github.com/urfave/cli/v2", "README.md"),
    facts: [
      title(/^cli$/i),
      purpose(/command line apps/i, "it builds command-line apps in Go"),
      run(/go get github\.com\/urfave\/cli\/v2`/, "how to add it to a Go project"),
      entry("app.go"),
      entry("command.go"),
    ],
  },
  {
    id: "errors",
    version: "0.9.1",
    language: "Go",
    shape: "no README and no go.mod: only Go files and their doc comments",
    source: goModule("golang-github-pkg-errors-dev", "0.9.1-2", "github.com/pkg/errors"),
    facts: [
      title(/errors/),
      purpose(/error handling primitives/i, "it provides error handling primitives"),
      entry("errors.go"),
      entry("stack.go"),
    ],
  },
  {
    id: "uuid",
    version: "1.3.0",
    language: "Go",
    shape: "no README: the module path in go.mod, the purpose in doc.go, licence headers everywhere",
    source: goModule("golang-github-google-uuid-dev", "1.3.0-1", "github.com/google/uuid"),
    facts: [
      title(/uuid/),
      purpose(/UUIDs?/, "it generates and inspects UUIDs"),
      run(/`go get github\.com\/google\/uuid(@latest)?`/, "how to add it to a Go project"),
      entry("uuid.go"),
      notPurpose(/License|licen[cs]ed/i, "a licence header is not the purpose"),
    ],
  },
  {
    id: "otel",
    version: "1.1.0",
    language: "Go",
    shape:
      "the OpenTelemetry Go monorepo (Debian ships it as one module): many packages, sdk/ and exporters/",
    source: goModule("golang-opentelemetry-otel-dev", "1.1.0-2", "go.opentelemetry.io/otel"),
    facts: [
      title(/otel|opentelemetry/i),
      purpose(/OpenTelemetry/, "it is the OpenTelemetry API for Go"),
      notPurpose(/License|licen[cs]ed/i, "a licence header is not the purpose"),
      run(/`go get go\.opentelemetry\.io\/otel(@latest)?`/, "how to add it to a Go project"),
      entry("trace.go"),
      layout(/^sdk\/( {2}\(|$)/m, "the sdk/ packages are in the layout"),
    ],
  },

  // ---- Python distributions (as installed: the import package and its PKG-INFO/METADATA) ----
  {
    id: "click",
    version: "8.1.3",
    language: "Python",
    shape: "an installed distribution: the README only as PKG-INFO's reStructuredText description",
    source: pythonDist("python3-click", "8.1.3-2", ["click", "click-8.1.3.egg-info"]),
    facts: [
      title(/^click$/i),
      purpose(/command line interface/i, "it builds command-line interfaces"),
      run(/`pip install (-U )?click`/, "how to install it"),
      entry("click/__init__.py"),
    ],
  },
  {
    id: "requests",
    version: "2.28.1",
    language: "Python",
    shape: "an installed distribution with a Markdown description and module banners (~~~ underlines)",
    source: pythonDist("python3-requests", "2.28.1+dfsg-1", ["requests", "requests-2.28.1.egg-info"]),
    facts: [
      title(/^requests$/i),
      purpose(/HTTP/, "it is an HTTP library"),
      notPurpose(/~~~/, "a docstring underline is not the purpose"),
      run(/`(python -m )?pip install requests`/, "how to install it"),
      entry("requests/__init__.py"),
      entry("requests/api.py"),
    ],
  },
  {
    id: "attrs",
    version: "22.2.0",
    language: "Python",
    shape: "a wheel's METADATA whose description is mostly HTML (logo and badge paragraphs)",
    source: pythonDist("python3-attr", "22.2.0-1", ["attr", "attrs", "attrs-22.2.0.dist-info"]),
    facts: [
      title(/^attrs$/i),
      purpose(/classes/i, "it writes classes without boilerplate"),
      notPurpose(/<\w|sponsor/i, "HTML and sponsor notes are not the purpose"),
      run(/`pip install attrs`/, "how to install it"),
      entry("attrs/__init__.py"),
    ],
  },
  {
    id: "tabulate",
    version: "0.8.9",
    language: "Python",
    shape: "a single-module distribution with a console script in entry_points.txt",
    source: pythonDist("python3-tabulate", "0.8.9-1", ["tabulate.py", "tabulate-0.8.9.egg-info"]),
    facts: [
      title(/^tabulate$/i),
      purpose(/tabular data/i, "it pretty-prints tables"),
      run(/`pip install tabulate`/, "how to install it"),
      run(/`tabulate`/, "its command-line tool"),
      entry("tabulate.py"),
    ],
  },
  {
    id: "docopt",
    version: "0.6.2",
    language: "Python",
    shape: "a single-module distribution, reStructuredText description with indented code",
    source: pythonDist("python3-docopt", "0.6.2-4.1", ["docopt.py", "docopt-0.6.2.egg-info"]),
    facts: [
      title(/^docopt$/i),
      purpose(
        /command-line interface|argument parser/i,
        "it parses command-line arguments from the usage text",
      ),
      run(/`pip install docopt/, "how to install it"),
      entry("docopt.py"),
    ],
  },

  // ---- Java ----
  {
    id: "beanshell",
    version: "2.0b4",
    language: "Java",
    shape: "an Ant source tree with no root README: build.xml, src/, docs/ (a manual), tests/",
    source: {
      kind: "debian",
      deb: "bsh-src",
      version: "2.0b4-20",
      copy: [{ from: "/usr/src/bsh-src/bsh.tar.gz", to: "." }],
    },
    facts: [
      title(/beanshell/i),
      purpose(/script(ing)? interpreter|Java scripting/i, "it is a (Java) scripting interpreter"),
      run(/`ant( \w+)?`/, "how to build it (Ant)"),
      key(/`build\.xml`/, "the build file is a key file"),
      {
        ...entry("src/bsh/Interpreter.java", "the interpreter (the jar's main class) is a key file"),
        gap: "src/ holds more than the replies of the first two rounds show: the JAR manifest naming the main class is read in the last round, too late to read the class",
      },
    ],
  },
];

/** The `apt-get install` line that brings every Debian entry (for CI; see docs-corpus.e2e.test.ts). */
export const DEBIAN_PACKAGES: string[] = [
  ...new Set(CORPUS.flatMap((e) => (e.source.kind === "debian" ? [e.source.deb] : []))),
];
