import type { Options } from "tsup";
export declare function libraryConfig(entry: Record<string, string>, overrides?: Options): Options;
