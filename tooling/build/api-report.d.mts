/** The API report of a package: entry path (".", "./node", ...) -> the report's text. */
export declare function apiReport(packageDir: string | URL): Record<string, string>;
