// The filesystem server's size limits and the texts that depend on them: imported by the bin at start,
// so nothing here may import the SDK, zod or the tools.
import { formatLimit } from "./response-budget.js";

/** Default of `maxResponseBytes`. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
/** Default of `maxMediaBytes`. */
export const DEFAULT_MAX_MEDIA_BYTES = 2 * 1024 * 1024;

/** The limits a filesystem server applies, validated. */
export interface FilesystemLimits {
  maxResponseBytes: number;
  maxMediaBytes: number;
}

/** Validate the size options (whole numbers within sane bounds); throws an Error naming the option. */
export function filesystemLimits(options: Partial<FilesystemLimits> = {}): FilesystemLimits {
  const check = (name: keyof FilesystemLimits, value: number | undefined, fallback: number, min: number) => {
    if (value === undefined) return fallback;
    if (
      typeof value !== "number" ||
      !Number.isSafeInteger(value) ||
      value < min ||
      value > 512 * 1024 * 1024
    ) {
      throw new Error(
        `${name} must be a whole number of bytes from ${min} to 536870912, got ${String(value)}`,
      );
    }
    return value;
  };
  return {
    maxResponseBytes: check("maxResponseBytes", options.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES, 4096),
    maxMediaBytes: check("maxMediaBytes", options.maxMediaBytes, DEFAULT_MAX_MEDIA_BYTES, 1),
  };
}

/** The description of `read_media_file`, which states the media size limit. */
export function readMediaFileDescription(maxMediaBytes: number): string {
  return (
    "Read a file inside the allowed directories and return it base64-encoded with its MIME type: images and audio as image/audio content, " +
    `anything else as an embedded resource. Files over ${formatLimit(maxMediaBytes)} are refused.`
  );
}
