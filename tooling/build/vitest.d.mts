import type { ViteUserConfig } from "vitest/config";

type TestOptions = NonNullable<ViteUserConfig["test"]>;
export declare function unitConfig(overrides?: TestOptions): ViteUserConfig;
export declare function e2eConfig(overrides?: TestOptions): ViteUserConfig;
