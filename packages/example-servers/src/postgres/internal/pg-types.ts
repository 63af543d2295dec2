// Built-in PostgreSQL types by OID (stable across versions: pg_type.dat), how their text output maps to
// JSON, and their names as format_type() prints them, so the common path needs no catalog look-up.

/** How a value's text output becomes JSON. */
export type ValueKind =
  | "bool" // true / false
  | "int" // exact JSON number (int2, int4, oid, xid, cid)
  | "float" // JSON number; NaN / Infinity / -Infinity as strings
  | "string" // JSON string of the text output (bigint, numeric, money, text, uuid, ... and every unknown type)
  | "json" // nested JSON, PostgreSQL's text embedded verbatim
  | "timestamp" // ISO 8601 with "T"
  | "timestamptz" // ISO 8601 with "T" and a "+HH:MM" offset
  | "array"; // JSON array of its elements

/** What the serializer needs to know about a column's type. */
export interface TypeInfo {
  /** As format_type() prints it, e.g. `numeric(10,2)`, `text[]`. */
  name: string;
  kind: ValueKind;
  /** For arrays: the element type. */
  element?: TypeInfo;
  /** For arrays: the element delimiter (`;` for box, `,` otherwise). */
  delimiter?: string;
}

// oid → [format_type name, kind]
const SCALARS: Record<number, [string, ValueKind]> = {
  16: ["boolean", "bool"],
  17: ["bytea", "string"],
  18: ['"char"', "string"],
  19: ["name", "string"],
  20: ["bigint", "string"],
  21: ["smallint", "int"],
  22: ["int2vector", "string"],
  23: ["integer", "int"],
  24: ["regproc", "string"],
  25: ["text", "string"],
  26: ["oid", "int"],
  27: ["tid", "string"],
  28: ["xid", "int"],
  29: ["cid", "int"],
  30: ["oidvector", "string"],
  114: ["json", "json"],
  142: ["xml", "string"],
  194: ["pg_node_tree", "string"],
  600: ["point", "string"],
  601: ["lseg", "string"],
  602: ["path", "string"],
  603: ["box", "string"],
  604: ["polygon", "string"],
  628: ["line", "string"],
  650: ["cidr", "string"],
  700: ["real", "float"],
  701: ["double precision", "float"],
  705: ["unknown", "string"],
  718: ["circle", "string"],
  774: ["macaddr8", "string"],
  790: ["money", "string"],
  829: ["macaddr", "string"],
  869: ["inet", "string"],
  1033: ["aclitem", "string"],
  1042: ["bpchar", "string"],
  1043: ["character varying", "string"],
  1082: ["date", "string"],
  1083: ["time without time zone", "string"],
  1114: ["timestamp without time zone", "timestamp"],
  1184: ["timestamp with time zone", "timestamptz"],
  1186: ["interval", "string"],
  1266: ["time with time zone", "string"],
  1560: ["bit", "string"],
  1562: ["bit varying", "string"],
  1700: ["numeric", "string"],
  1790: ["refcursor", "string"],
  2202: ["regprocedure", "string"],
  2203: ["regoper", "string"],
  2204: ["regoperator", "string"],
  2205: ["regclass", "string"],
  2206: ["regtype", "string"],
  2249: ["record", "string"],
  2275: ["cstring", "string"],
  2278: ["void", "string"],
  2950: ["uuid", "string"],
  3220: ["pg_lsn", "string"],
  3361: ["pg_ndistinct", "string"],
  3402: ["pg_dependencies", "string"],
  3614: ["tsvector", "string"],
  3615: ["tsquery", "string"],
  3734: ["regconfig", "string"],
  3769: ["regdictionary", "string"],
  3802: ["jsonb", "json"],
  3904: ["int4range", "string"],
  3906: ["numrange", "string"],
  3908: ["tsrange", "string"],
  3910: ["tstzrange", "string"],
  3912: ["daterange", "string"],
  3926: ["int8range", "string"],
  4072: ["jsonpath", "string"],
  4089: ["regnamespace", "string"],
  4096: ["regrole", "string"],
  4191: ["regcollation", "string"],
  4451: ["int4multirange", "string"],
  4532: ["nummultirange", "string"],
  4533: ["tsmultirange", "string"],
  4534: ["tstzmultirange", "string"],
  4535: ["datemultirange", "string"],
  4536: ["int8multirange", "string"],
  5038: ["pg_snapshot", "string"],
  5069: ["xid8", "string"],
};

// array oid → element oid
const ARRAYS: Record<number, number> = {
  1000: 16,
  1001: 17,
  1002: 18,
  1003: 19,
  1016: 20,
  1005: 21,
  1006: 22,
  1007: 23,
  1008: 24,
  1009: 25,
  1028: 26,
  1010: 27,
  1011: 28,
  1012: 29,
  1013: 30,
  199: 114,
  143: 142,
  1017: 600,
  1018: 601,
  1019: 602,
  1020: 603,
  1027: 604,
  629: 628,
  651: 650,
  1021: 700,
  1022: 701,
  719: 718,
  775: 774,
  791: 790,
  1040: 829,
  1041: 869,
  1034: 1033,
  1014: 1042,
  1015: 1043,
  1182: 1082,
  1183: 1083,
  1115: 1114,
  1185: 1184,
  1187: 1186,
  1270: 1266,
  1561: 1560,
  1563: 1562,
  1231: 1700,
  2201: 1790,
  2207: 2202,
  2208: 2203,
  2209: 2204,
  2210: 2205,
  2211: 2206,
  2287: 2249,
  1263: 2275,
  2951: 2950,
  3221: 3220,
  3643: 3614,
  3645: 3615,
  3735: 3734,
  3770: 3769,
  3807: 3802,
  3905: 3904,
  3907: 3906,
  3909: 3908,
  3911: 3910,
  3913: 3912,
  3927: 3926,
  4073: 4072,
  4090: 4089,
  4097: 4096,
  4192: 4191,
  5039: 5038,
  271: 5069,
};

/** The `(n)` / `(p,s)` suffix format_type() prints for a type modifier, or undefined if it cannot say. */
function typmodSuffix(oid: number, typmod: number): string | undefined {
  if (typmod < 0) return "";
  switch (oid) {
    case 1042: // character(n)
    case 1043: // character varying(n)
      return typmod >= 4 ? `(${typmod - 4})` : undefined;
    case 1560: // bit(n)
    case 1562: // bit varying(n)
      return `(${typmod})`;
    case 1700: {
      if (typmod < 4) return undefined;
      const precision = ((typmod - 4) >> 16) & 0xffff;
      const scale = ((((typmod - 4) & 0x7ff) ^ 1024) - 1024) | 0; // PostgreSQL 15+: signed 11-bit scale
      return `(${precision},${scale})`;
    }
    case 1083:
    case 1114:
    case 1184:
    case 1266:
      return `(${typmod})`;
    default:
      return undefined; // interval ranges and anything else: ask the server
  }
}

/** format_type() of a built-in scalar with a modifier, e.g. `timestamp(3) with time zone`. */
function scalarName(oid: number, typmod: number): string | undefined {
  const entry = SCALARS[oid];
  if (!entry) return undefined;
  const suffix = typmodSuffix(oid, typmod);
  if (suffix === undefined) return undefined;
  if (suffix === "") return entry[0];
  if (oid === 1042) return `character${suffix}`;
  const [base] = entry;
  const zone = / (with|without) time zone$/.exec(base);
  return zone ? `${base.slice(0, zone.index)}${suffix}${zone[0]}` : `${base}${suffix}`;
}

/** Type information for a built-in type, or undefined when the server must be asked. */
export function builtinType(oid: number, typmod: number): TypeInfo | undefined {
  const scalar = SCALARS[oid];
  if (scalar) {
    const name = scalarName(oid, typmod);
    return name === undefined ? undefined : { name, kind: scalar[1] };
  }
  const elementOid = ARRAYS[oid];
  if (elementOid === undefined) return undefined;
  // An array column's modifier is its element's (varchar(20)[]).
  const element = builtinType(elementOid, typmod);
  if (!element) return undefined;
  return { name: `${element.name}[]`, kind: "array", element, delimiter: elementOid === 603 ? ";" : "," };
}

/** Type information for any type from what the catalog says about it (used for non-built-in OIDs). */
export function catalogType(
  name: string,
  category: string,
  elementOid: number,
  delimiter: string,
  elementTypmod: number,
): TypeInfo {
  if (category === "A" && elementOid !== 0) {
    const element = builtinType(elementOid, elementTypmod) ?? { name: "", kind: "string" as const };
    return { name, kind: "array", element, delimiter: delimiter || "," };
  }
  return { name, kind: "string" };
}
