/** Pin the API report of the package in `packageDir` (one test per entry point, against api/*.api.d.ts). */
export declare function describeApiReport(packageDir: string | URL): void;
