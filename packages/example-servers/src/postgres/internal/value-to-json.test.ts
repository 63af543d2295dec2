import { describe, expect, it } from "vitest";
import { builtinType } from "./pg-types.js";
import { parsePgArray, valueToJson } from "./value-to-json.js";

const type = (oid: number, typmod = -1) => {
  const found = builtinType(oid, typmod);
  if (!found) throw new Error(`no built-in type ${oid}`);
  return found;
};

describe("valueToJson", () => {
  it.each([
    [16, "t", "true"],
    [16, "f", "false"],
    [23, "-2147483648", "-2147483648"],
    [21, "7", "7"],
    [26, "4294967295", "4294967295"],
    [20, "9223372036854775807", '"9223372036854775807"'],
    [1700, "123456789012345678901234567890.000000001", '"123456789012345678901234567890.000000001"'],
    [1700, "NaN", '"NaN"'],
    [701, "0.1", "0.1"],
    [701, "1e+300", "1e+300"],
    [701, "-1.25e-06", "-1.25e-06"],
    [701, "NaN", '"NaN"'],
    [701, "Infinity", '"Infinity"'],
    [700, "-Infinity", '"-Infinity"'],
    [790, "$1,000.00", '"$1,000.00"'],
    [25, 'he said "hi"\n', '"he said \\"hi\\"\\n"'],
    [17, "\\x00ff", '"\\\\x00ff"'],
    [114, '{"a": 12345678901234567890, "b": [1.0, null]}', '{"a": 12345678901234567890, "b": [1.0, null]}'],
    [3802, '"just a string"', '"just a string"'],
    [1082, "2024-02-29", '"2024-02-29"'],
    [1082, "0044-03-15 BC", '"0044-03-15 BC"'],
    [1114, "2024-01-02 03:04:05.123456", '"2024-01-02T03:04:05.123456"'],
    [1114, "infinity", '"infinity"'],
    [1184, "2024-01-02 03:04:05+00", '"2024-01-02T03:04:05+00:00"'],
    [1184, "2024-01-02 03:04:05.5+05:30", '"2024-01-02T03:04:05.5+05:30"'],
    [1184, "1850-01-01 00:00:00+00:09:21", '"1850-01-01T00:00:00+00:09:21"'],
    [1184, "12345-01-01 00:00:00-08", '"12345-01-01T00:00:00-08:00"'],
    [1184, "0044-03-15 12:00:00+00 BC", '"0044-03-15 12:00:00+00 BC"'],
    [1186, "P1Y2M3DT4H5M6.5S", '"P1Y2M3DT4H5M6.5S"'],
    [1083, "12:34:56.789", '"12:34:56.789"'],
    [2950, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", '"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"'],
  ])("oid %i %j → %s", (oid, text, json) => {
    expect(valueToJson(text, type(oid))).toBe(json);
  });

  it("NULL is null whatever the type", () => {
    expect(valueToJson(null, type(23))).toBe("null");
    expect(valueToJson(null, type(3802))).toBe("null");
  });

  it("arrays become JSON arrays of their elements, serialized by the element type", () => {
    expect(valueToJson("{1,NULL,3}", type(1007))).toBe("[1,null,3]");
    expect(valueToJson('{"a b","c\\"d","e\\\\f",NULL,"NULL"}', type(1009))).toBe(
      '["a b","c\\"d","e\\\\f",null,"NULL"]',
    );
    expect(valueToJson("{{1,2},{3,4}}", type(1016))).toBe('[["1","2"],["3","4"]]');
    expect(valueToJson("{}", type(1007))).toBe("[]");
    expect(valueToJson('{"{\\"a\\": 1}",null}', type(3807))).toBe('[{"a": 1},null]');
    expect(valueToJson('{"2024-01-01 00:00:00+00"}', type(1185))).toBe('["2024-01-01T00:00:00+00:00"]');
    expect(valueToJson("{t,f}", type(1000))).toBe("[true,false]");
    expect(valueToJson("{(3,4),(1,2);(1,1),(0,0)}", type(1020))).toBe('["(3,4),(1,2)","(1,1),(0,0)"]');
  });

  it("an array with explicit bounds is kept as its text", () => {
    expect(valueToJson("[0:1]={1,2}", type(1007))).toBe('"[0:1]={1,2}"');
  });

  it("every fragment is valid JSON", () => {
    for (const [oid, text] of [
      [701, "1e-05"],
      [700, "-0"],
      [23, "0"],
      [1009, '{"\\\\","\\""}'],
    ] as const) {
      expect(() => JSON.parse(valueToJson(text, type(oid)))).not.toThrow();
    }
  });
});

describe("parsePgArray", () => {
  it("parses nested, quoted and NULL elements", () => {
    expect(parsePgArray('{{a,"b,c"},{NULL,"}"}}')).toEqual([
      ["a", "b,c"],
      [null, "}"],
    ]);
  });

  it("rejects what it does not understand", () => {
    expect(parsePgArray("{1,2")).toBeUndefined();
    expect(parsePgArray('{"a}')).toBeUndefined();
    expect(parsePgArray("{1}x")).toBeUndefined();
    expect(parsePgArray("1,2")).toBeUndefined();
  });
});
