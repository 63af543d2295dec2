import type { MCPToolDescriptor } from "@agentforge/mcp-permissions";
import { isStopWord, stem, words } from "./internal/search-text.js";
import { TOOL_VOCABULARY } from "./internal/tool-vocabulary.js";
import {
  type MCPRankedTool,
  type MCPToolRanker,
  type MCPToolRankOptions,
  toolParameters,
  toolTitle,
} from "./mcp-tool-ranker.js";

/** How much each part of a tool counts (BM25F field weights). */
export interface LexicalFieldWeights {
  /** The words of the identity: server and tool name (`github.list_issues` → github, list, issues). */
  name: number;
  title: number;
  description: number;
  /** Parameter names (and the names one level down). */
  parameters: number;
  /** Parameter descriptions. */
  parameterDescriptions: number;
}

/** Options of `createLexicalToolRanker`. */
export interface LexicalToolRankerOptions {
  /** Field weights (defaults: name 3, title 2, description 1, parameters 1, parameter descriptions 0.5). */
  fieldWeights?: Partial<LexicalFieldWeights>;
  /**
   * Use the built-in vocabulary of tool words (default true): groups such as `folder`/`directory`,
   * `ticket`/`bug`/`issue`, `altitude`/`how high`/`elevation` let a query meet a tool it shares no word with.
   */
  vocabulary?: boolean;
  /** More groups of words or phrases that mean the same for your tools (e.g. `["invoice", "bill"]`). */
  synonyms?: readonly (readonly string[])[];
  /** Reduce words to stems (`files` → `file`, `created` → `create`); default true. */
  stemming?: boolean;
}

const DEFAULT_WEIGHTS: LexicalFieldWeights = {
  name: 3,
  title: 2,
  description: 1,
  parameters: 1,
  parameterDescriptions: 0.5,
};

/** BM25 saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;
/** A word's vocabulary group counts this much, on both sides (query and tool), besides the word itself. */
const GROUP_WEIGHT = 1;
/** A stem counts this much of the word itself (`placed` meets `place` at this weight). */
const STEM_WEIGHT = 0.3;
/** How strongly a tool's score follows the share of the query's parts it matches. */
const COVERAGE = 1;
/** Hex words of commit-hash length. */
const HASH_LIKE = /^[0-9a-f]{6,40}$/;
/** Longest query analysed, in words. */
const MAX_QUERY_WORDS = 64;

type Terms = Map<string, number>;

interface Vocabulary {
  /** Word (as written) → groups of single words it belongs to. */
  words: Map<string, number[]>;
  /** Stem → groups, for words not in `words` (`placed` is not listed, `place` is). */
  stems: Map<string, number[]>;
  /** First stem → phrases (their stems) and their group. */
  phrases: Map<string, { stems: string[]; group: number }[]>;
}

function buildVocabulary(
  groups: readonly (readonly string[])[],
  normalize: (w: string) => string,
): Vocabulary {
  const vocabulary: Vocabulary = { words: new Map(), stems: new Map(), phrases: new Map() };
  const put = <K>(map: Map<K, number[]>, key: K, group: number) => {
    const known = map.get(key) ?? [];
    if (!known.includes(group)) known.push(group);
    map.set(key, known);
  };
  groups.forEach((group, index) => {
    for (const entry of group) {
      const raw = words(entry);
      const stems = raw.map(normalize);
      const [first] = stems;
      if (first === undefined) continue;
      if (raw.length === 1) {
        put(vocabulary.words, raw[0] as string, index);
        put(vocabulary.stems, first, index);
      } else {
        const known = vocabulary.phrases.get(first) ?? [];
        known.push({ stems, group: index });
        vocabulary.phrases.set(first, known);
      }
    }
  });
  return vocabulary;
}

/** A tool analysed once: weighted term frequencies and weighted length. */
interface AnalysedTool {
  terms: Terms;
  length: number;
}

/**
 * The default ranker of `executor.searchTools`: BM25F over a tool's identity words, title, description
 * and parameter names and descriptions, with identifiers split (`list_directory`, `listDirectory` ↔
 * "list directory"), light stemming, stop words dropped, and a built-in vocabulary of tool words
 * (`folder` ↔ `directory`, `ticket` ↔ `issue`, `how high` ↔ `elevation`) that counts less than the word
 * itself. Statistics (document frequencies, lengths) are computed over the tools it is given — the
 * asking agent's — so tools the agent may not use never influence a score. In-process: no network, no
 * model. Each tool definition is analysed once (cached per descriptor object).
 */
export function createLexicalToolRanker(options: LexicalToolRankerOptions = {}): MCPToolRanker {
  const weights: LexicalFieldWeights = { ...DEFAULT_WEIGHTS, ...options.fieldWeights };
  for (const [field, value] of Object.entries(weights)) {
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new RangeError(
        `createLexicalToolRanker: fieldWeights.${field} must be a finite number >= 0, got ${String(value)}`,
      );
    }
  }
  const normalize = options.stemming === false ? (w: string) => w : stem;
  const groups = [...(options.vocabulary === false ? [] : TOOL_VOCABULARY), ...(options.synonyms ?? [])];
  if (!groups.every((g) => Array.isArray(g) && g.every((w) => typeof w === "string"))) {
    throw new TypeError("createLexicalToolRanker: synonyms must be a list of lists of words or phrases");
  }
  const vocabulary = buildVocabulary(groups, normalize);
  const cache = new WeakMap<MCPToolDescriptor, AnalysedTool>();

  /**
   * Adds the terms of a text: each word (stop words dropped) with `weight`, its stem with
   * `weight × STEM_WEIGHT`, and the vocabulary groups of its words and phrases with
   * `weight × GROUP_WEIGHT`. A word's groups are those it is listed in, else those of its stem. In a
   * query (`consume`), a phrase stands for its words: "job title" counts as its group, at full weight,
   * and not as "job" and "title".
   */
  const addText = (terms: Terms, text: string, weight: number, query?: { units: string[][] }) => {
    const all = words(text);
    const raw = query && all.length > MAX_QUERY_WORDS ? all.slice(0, MAX_QUERY_WORDS) : all;
    const stems = raw.map(normalize);
    let unit: string[] = [];
    const add = (key: string, value: number) => {
      terms.set(key, (terms.get(key) ?? 0) + value);
      unit.push(key);
    };
    let length = 0;
    let consumedUntil = 0;
    for (let i = 0; i < raw.length; i++) {
      const word = raw[i] as string;
      const s = stems[i] as string;
      unit = [];
      let longest = 0;
      for (const phrase of vocabulary.phrases.get(s) ?? []) {
        if (phrase.stems.every((p, k) => stems[i + k] === p)) {
          add(`~${phrase.group}`, weight * (query ? 1 : GROUP_WEIGHT));
          longest = Math.max(longest, phrase.stems.length);
        }
      }
      if (query && longest > 0) consumedUntil = Math.max(consumedUntil, i + longest);
      if (i >= consumedUntil) {
        // A commit-hash-like token (`abc123`, `9fceb02`) is looked up as "sha".
        const lookup = HASH_LIKE.test(word) && /\d/.test(word) && /[a-f]/.test(word) ? "sha" : word;
        for (const group of vocabulary.words.get(lookup) ?? vocabulary.stems.get(s) ?? []) {
          add(`~${group}`, weight * GROUP_WEIGHT);
        }
        if (!isStopWord(word)) {
          add(word, weight);
          // Every word also counts as its stem, so `files` meets `file` (and `file` meets `file` twice).
          add(`^${s}`, weight * STEM_WEIGHT);
          length += weight;
        }
      }
      if (query && unit.length > 0) query.units.push(unit);
    }
    return length;
  };

  const analyse = (tool: MCPToolDescriptor): AnalysedTool => {
    const known = cache.get(tool);
    if (known) return known;
    const terms: Terms = new Map();
    let length = 0;
    length += addText(terms, `${tool.serverName} ${tool.toolName}`, weights.name);
    const title = toolTitle(tool);
    if (title !== undefined) length += addText(terms, title, weights.title);
    if (typeof tool.description === "string") length += addText(terms, tool.description, weights.description);
    for (const parameter of toolParameters(tool)) {
      length += addText(terms, parameter.name, weights.parameters);
      if (parameter.description) {
        length += addText(terms, parameter.description, weights.parameterDescriptions);
      }
    }
    const analysed = { terms, length: Math.max(length, 1) };
    cache.set(tool, analysed);
    return analysed;
  };

  return {
    rank(
      query: string,
      tools: readonly MCPToolDescriptor[],
      rankOptions: MCPToolRankOptions,
    ): MCPRankedTool[] {
      const queryTerms: Terms = new Map();
      const parts = { units: [] as string[][] };
      addText(queryTerms, query, 1, parts);
      if (queryTerms.size === 0 || tools.length === 0) return [];
      const analysed = tools.map(analyse);
      const n = analysed.length;
      const averageLength = analysed.reduce((sum, a) => sum + a.length, 0) / n;
      const idf = new Map<string, number>();
      for (const term of queryTerms.keys()) {
        let df = 0;
        for (const a of analysed) if (a.terms.has(term)) df++;
        if (df > 0) idf.set(term, Math.log(1 + (n - df + 0.5) / (df + 0.5)));
      }
      // The parts of the query any tool knows; a tool's score is scaled by the share of them it matches
      // (so "drop the cached entries" prefers a tool matching both "drop" and "cached" to one named drop).
      const units = parts.units.filter((unit) => unit.some((key) => idf.has(key)));
      const ranked: MCPRankedTool[] = [];
      analysed.forEach((a, index) => {
        let score = 0;
        const norm = K1 * (1 - B + (B * a.length) / averageLength);
        for (const [term, queryWeight] of queryTerms) {
          const tf = a.terms.get(term);
          const weight = idf.get(term);
          if (tf === undefined || weight === undefined) continue;
          score += queryWeight * weight * ((tf * (K1 + 1)) / (tf + norm));
        }
        if (score <= 0) return;
        const matched = units.filter((unit) => unit.some((key) => a.terms.has(key))).length;
        score *= (matched / Math.max(1, units.length)) ** COVERAGE;
        ranked.push({ identity: (tools[index] as MCPToolDescriptor).identity, score });
      });
      // Best first; ties in the order the tools were given, so a ranking is reproducible.
      return ranked
        .map((r, i) => ({ r, i }))
        .sort((x, y) => y.r.score - x.r.score || x.i - y.i)
        .slice(0, Math.max(0, rankOptions.limit))
        .map(({ r }) => ({ identity: r.identity, score: Math.round(r.score * 1000) / 1000 }));
    },
  };
}
