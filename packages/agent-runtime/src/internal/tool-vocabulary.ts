// A small hand-written vocabulary of how people talk about what tools do: groups of words and phrases
// that mean the same thing for finding a tool ("altitude", "how high", "above sea level" and "elevation";
// "ticket", "bug" and "issue"). A query word and a tool word of the same group meet on the group, with
// less weight than the same word would. Written for common tool vocabulary — files, code hosting, chat,
// browsers, maps, search, memory, databases, caches — not for any one server's tool list.
//
// Phrases are written as plain text; they are analysed (split, lowercased, stemmed) like everything else.

export const TOOL_VOCABULARY: readonly (readonly string[])[] = [
  // ─── actions ──────────────────────────────────────────────────────────────────────────────────────
  ["create", "make", "new", "start", "set up", "setup", "init", "initialize", "generate", "open a new", "open a", "open an", "file a", "file an", "report a", "raise a", "raise an"],
  ["delete", "remove", "erase", "drop", "forget", "discard", "purge", "destroy", "wipe", "get rid of"],
  ["update", "change", "edit", "modify", "replace", "alter", "rewrite", "amend", "patch", "up to date", "refresh", "sync", "catch up"],
  ["list", "enumerate", "which", "what are", "show all", "all of", "overview", "inventory"],
  ["search", "find", "look up", "lookup", "locate", "seek", "look for", "where", "discover", "query", "know about"],
  ["move", "rename", "relocate", "transfer"],
  ["read", "open", "view", "show", "display", "see", "look at", "cat", "inside", "contents", "content", "print"],
  ["write", "save", "overwrite", "persist", "put", "store", "dump"],
  ["run", "execute", "evaluate", "eval", "exec", "invoke", "perform"],
  ["send", "post", "say", "announce", "share", "notify", "broadcast", "let know"],
  ["reply", "respond", "answer", "follow up", "replies"],
  ["wait", "until", "await", "appear", "show up", "shows up", "disappear", "sleep", "delay"],
  ["close", "quit", "exit", "kill", "shut down"],
  ["compare", "diff", "difference", "versus", "vs", "against", "delta"],
  ["undo", "revert", "reset", "unstage", "rollback", "roll back", "take back"],
  ["merge", "squash", "integrate", "combine"],
  ["review", "approve", "approval", "lgtm", "sign off", "request changes", "reviewer"],
  ["fork", "copy", "clone", "duplicate", "own copy"],
  ["upload", "attach", "attachment"],
  ["press", "hit", "key", "keyboard", "keystroke", "enter", "shortcut", "escape"],
  ["type", "enter", "input", "fill", "fill in", "fill out", "form", "field", "textbox", "text box", "box"],
  ["click", "tap", "button", "link"],
  ["select", "choose", "pick", "option", "dropdown", "drop down", "combo box", "combobox"],
  ["hover", "mouseover", "cursor", "point at"],
  ["drag", "drop", "drag and drop", "drop onto"],
  ["sum", "add up", "plus", "total", "addition", "calculate", "arithmetic"],
  ["echo", "repeat", "say back", "repeat back", "parrot", "mirror"],
  ["compress", "gzip", "zip", "deflate", "smaller"],
  ["think", "thinking", "thought", "reason", "reasoning", "step by step", "plan", "reflect", "analyze", "problem solving", "think through"],

  // ─── browsers and web pages ───────────────────────────────────────────────────────────────────────
  ["navigate", "go to", "goto", "visit", "load", "url", "website", "web page", "webpage", "site", "www", "http", "https", "com", "org", "net", "io"],
  ["back", "previous", "go back", "where i was", "history back"],
  ["screenshot", "picture", "image", "capture", "snapshot", "screen", "screen capture", "grab", "look like", "looks like"],
  ["console", "error", "errors", "warning", "warnings", "devtools", "logged", "printed"],
  ["network", "request", "requests", "http", "xhr", "fetch", "traffic"],
  ["dialog", "popup", "pop up", "alert", "confirm", "confirmation", "prompt", "modal", "are you sure"],
  ["resize", "size", "dimensions", "viewport", "window size", "width", "height"],
  ["dark mode", "light mode", "dark", "light", "theme", "color scheme", "colour scheme", "appearance", "reduced motion", "emulate"],
  ["tab", "tabs", "new tab"],
  ["javascript", "js", "script", "code", "expression", "document", "dom"],

  // ─── maps and places ──────────────────────────────────────────────────────────────────────────────
  ["coordinates", "coordinate", "latitude", "longitude", "lat", "lng", "lon", "gps", "position", "geocode", "where is"],
  ["address", "street", "street address", "postal", "geocode", "reverse geocode"],
  ["elevation", "altitude", "height", "high", "how high", "sea level", "above sea level", "tall"],
  ["directions", "route", "how to get", "get to", "way to", "navigation"],
  ["distance", "drive", "driving", "travel", "commute", "trip", "how far", "how long", "travel time", "duration", "walk", "walking", "transit"],
  ["place", "places", "restaurant", "cafe", "coffee", "bar", "shop", "business", "businesses", "venue", "nearby", "near", "near me", "around", "local", "hotel", "food"],
  ["details", "opening hours", "hours", "phone number", "rating", "information about"],

  // ─── the web and knowledge ────────────────────────────────────────────────────────────────────────
  ["web", "internet", "online", "google", "news", "latest", "article", "articles", "search engine"],
  ["remember", "memorize", "memory", "recall", "keep in mind", "knowledge", "know", "knowledge graph", "graph", "fact", "facts", "observation", "observations", "entity", "entities", "node", "nodes"],
  ["relation", "relations", "relationship", "related", "married", "works at", "works for", "knows", "friend", "connected", "between"],
  ["person", "people", "user", "users", "member", "members", "team", "colleague", "who", "everyone", "developer", "developers", "contributor"],
  ["profile", "job title", "job", "title", "role", "bio", "about someone"],

  // ─── chat ─────────────────────────────────────────────────────────────────────────────────────────
  ["channel", "channels", "room", "rooms", "chat", "chat room", "workspace"],
  ["history", "recent", "recently", "latest", "past", "conversation", "messages"],
  ["thread", "threads", "replies", "conversation"],
  ["reaction", "react", "emoji", "thumbs up", "like", "upvote", "+1"],
  ["message", "messages", "post", "text", "note"],

  // ─── code hosting and version control ─────────────────────────────────────────────────────────────
  ["issue", "issues", "bug", "bugs", "ticket", "tickets", "problem", "defect", "task"],
  ["pull request", "pull requests", "pr", "prs", "merge request", "merge requests", "mr", "patch"],
  ["comment", "comments", "note", "remark", "feedback"],
  ["status", "checks", "check", "ci", "build", "tests", "pipeline", "passing", "pass", "green", "failing"],
  ["repository", "repositories", "repo", "repos", "project", "projects", "codebase", "code base"],
  ["code", "source", "source code", "codebase", "implementation", "snippet", "symbol", "usage", "call", "called"],
  ["commit", "commits", "committed", "revision", "sha", "hash"],
  ["log", "history", "commits", "recent commits"],
  ["branch", "branches", "checkout", "check out", "switch"],
  ["stage", "staged", "staging", "add", "index", "track"],
  ["unstaged", "not staged", "uncommitted", "working tree", "modified", "dirty", "changes"],
  ["readme", "file contents", "contents"],

  // ─── files ────────────────────────────────────────────────────────────────────────────────────────
  ["file", "files", "document", "documents", "txt", "md", "json", "csv", "yaml", "yml", "py", "ts"],
  ["directory", "directories", "folder", "folders", "dir", "dirs", "subfolder", "subfolders", "subdirectory"],
  ["tree", "structure", "hierarchy", "layout", "recursive", "nested", "whole"],
  ["size", "sizes", "space", "big", "large", "largest", "bytes", "disk", "biggest", "take up"],
  ["metadata", "info", "information", "last modified", "modified", "created", "timestamp", "date", "when", "permissions", "properties", "stat"],
  ["allowed", "permitted", "access", "accessible", "can access", "touch", "allowed to"],
  ["image", "images", "picture", "png", "jpg", "jpeg", "gif", "audio", "media", "video"],
  ["all", "every", "everything", "entire", "whole", "complete", "full"],
  ["multiple", "both", "several", "many", "at once", "batch", "together"],

  // ─── data ─────────────────────────────────────────────────────────────────────────────────────────
  ["database", "db", "sql", "query", "table", "tables", "rows", "records", "how many", "count", "average", "orders", "customers", "sales", "report"],
  ["cache", "cached", "caching", "redis", "key", "keys", "value", "values", "session", "expire", "expiry", "ttl", "expiration"],
  ["environment", "environment variables", "env", "variables", "vars", "configuration", "settings"],
];
