// Run by scripts/consumer-check.mjs: the library through require().
const assert = require("node:assert/strict");
const api = require("@agentforge/example-servers");
const { createLocalToolsServer } = api;

assert.equal(typeof createLocalToolsServer().connect, "function");
// Helpers behind the tools are not part of the product.
for (const name of ["countWords", "isLoopbackHost", "describeQueryFailure"])
  assert.equal(name in api, false, name);
{
  const { createFilesystemServer, createSequentialThinkingServer } = require("@agentforge/example-servers");
  assert.equal(typeof createFilesystemServer({ roots: [require("node:os").tmpdir()] }).connect, "function");
  assert.throws(() => createFilesystemServer({ roots: [] }), /no allowed directory/);
  assert.equal(typeof createSequentialThinkingServer().connect, "function");
}
{
  const { checkReadOnlySql, createPostgresServer } = require("@agentforge/example-servers");
  assert.equal(typeof createPostgresServer({ url: "postgres://reader@127.0.0.1/shop" }).connect, "function");
  assert.throws(() => createPostgresServer({ url: "mysql://x" }), /url must start with postgres:\/\//);
  checkReadOnlySql("WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d").then((verdict) => {
    assert.equal(verdict.rule, "data-modifying-cte");
    console.log("example-servers postgres (require): ok");
  });
}
console.log("example-servers (require): ok");
