import { describe, expect, it } from "vitest";
import { builtinType, catalogType } from "./pg-types.js";

describe("builtinType", () => {
  it.each([
    [23, -1, "integer"],
    [20, -1, "bigint"],
    [1043, 24, "character varying(20)"],
    [1043, -1, "character varying"],
    [1042, 6, "character(2)"],
    [1700, (10 << 16) + 2 + 4, "numeric(10,2)"],
    [1700, -1, "numeric"],
    [1184, 3, "timestamp(3) with time zone"],
    [1114, 0, "timestamp(0) without time zone"],
    [1266, 6, "time(6) with time zone"],
    [1560, 8, "bit(8)"],
    [1007, -1, "integer[]"],
    [1015, 24, "character varying(20)[]"],
    [3807, -1, "jsonb[]"],
  ])("oid %i typmod %i → %s", (oid, typmod, name) => {
    expect(builtinType(oid, typmod)?.name).toBe(name);
  });

  it("a negative numeric scale (PostgreSQL 15+) is decoded", () => {
    // numeric(5,-2): typmod = ((5 << 16) | (-2 & 0x7ff)) + 4
    expect(builtinType(1700, ((5 << 16) | (-2 & 0x7ff)) + 4)?.name).toBe("numeric(5,-2)");
  });

  it("asks the catalog for unknown OIDs and interval ranges", () => {
    expect(builtinType(16_385, -1)).toBeUndefined();
    expect(builtinType(1186, 0x7fff0000 | 6)).toBeUndefined();
  });

  it("knows box arrays use ';'", () => {
    expect(builtinType(1020, -1)).toMatchObject({ kind: "array", delimiter: ";" });
  });
});

describe("catalogType", () => {
  it("an array of a user type is an array of strings; other user types are strings", () => {
    expect(catalogType("mood[]", "A", 16_400, ",", -1)).toMatchObject({
      kind: "array",
      element: { kind: "string" },
    });
    expect(catalogType("mood", "E", 0, ",", -1)).toEqual({ name: "mood", kind: "string" });
    expect(catalogType("int4[]", "A", 23, ",", -1)).toMatchObject({ element: { kind: "int" } });
  });
});
