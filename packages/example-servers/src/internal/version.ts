import pkg from "../../package.json" with { type: "json" };

/** This package's version, reported as every server's serverInfo.version and by --version. */
export const VERSION: string = pkg.version;
