/**
 * The one markdown-it setup of the core: CommonMark (HTML blocks on) + GFM tables and strikethrough, block parse
 * only (the inline pass and text_join are off: the engine keeps inline source verbatim, and inline tokens are most
 * of markdown-it's cost). The slice parser (blocks.ts), the ```toon fence finder (toon/fences.ts) and the inline
 * disable comments (inlineControl.ts) all read this parser, so a fence, a comment and a block are exactly what the
 * same CommonMark renderer sees.
 */
import MarkdownIt from 'markdown-it';

export type Parser = ReturnType<typeof MarkdownIt>;
export type Token = ReturnType<Parser['parse']>[number];

let parser: Parser | undefined;

/** The shared block parser, built on first use. */
export function blockParser(): Parser {
  if (!parser) {
    const p = MarkdownIt('commonmark').enable(['table', 'strikethrough']);
    p.core.ruler.disable(['inline', 'text_join'], true);
    parser = p;
  }
  return parser;
}
