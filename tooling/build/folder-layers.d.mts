/** One relative import between two parts (folders) of a source tree, with the file and line that adds it. */
export interface ImportEdge {
  from: string;
  to: string;
  where: string;
}
/** Every non-test .ts file under `dir`. */
export declare function sourceFiles(dir: string): string[];
/** Every relative import of `file` (static, re-export, dynamic) as an edge between parts, with its line. */
export declare function importEdges(file: string, partOf: (path: string) => string): ImportEdge[];
/** The edges that run back up `layers` (or leave it), as "file:line from -> to". */
export declare function layerViolations(edges: ImportEdge[], layers: readonly string[]): string[];
/** `file`'s first folder below `root`, or the file itself when it sits in `root`. */
export declare function topPart(root: string, file: string): string;
