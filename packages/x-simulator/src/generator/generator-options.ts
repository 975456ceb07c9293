import { z } from 'zod';

const word = z.string().regex(/^[\p{L}\p{N}_]{1,40}$/u, 'a word of letters, digits or _');

/** What the post generator produces. Every field is optional here: unset ones keep their current value. */
export const generatorOverridesSchema = z
  .object({
    postsPerSecond: z.number().min(0).max(10_000),
    /** Hashtag vocabulary without `#`, most popular first: Zipf ranks follow this order. */
    tags: z.array(word).min(1),
    /** Cashtag vocabulary without `$` (X extracts 1–6 letters), most popular first. */
    cashtags: z.array(z.string().regex(/^[A-Za-z]{1,6}$/)),
    words: z.array(word).min(1),
    authorCount: z.number().int().min(1).max(100_000),
    /** Zipf exponent for tags and authors: 0 is uniform, ~1 is the usual social-media skew. */
    zipfExponent: z.number().min(0).max(5),
    langs: z.array(z.object({ code: z.string().regex(/^[a-z]{2,3}$/), weight: z.number().positive() }).strict()).min(1),
    replyRate: z.number().min(0).max(1),
    retweetRate: z.number().min(0).max(1),
    cashtagRate: z.number().min(0).max(1),
    /** Likes added per generated post, spread over recent posts. */
    likesPerPost: z.number().min(0).max(100),
    seed: z.number().int(),
  })
  .partial()
  .strict();

export type GeneratorOverrides = z.infer<typeof generatorOverridesSchema>;
export type GeneratorOptions = Required<GeneratorOverrides>;

export const GENERATOR_DEFAULTS: GeneratorOptions = {
  postsPerSecond: 5,
  tags: ['btc', 'eth', 'ai', 'crypto', 'news', 'sports', 'music', 'tech', 'nft', 'defi'],
  cashtags: ['BTC', 'ETH', 'TSLA', 'AAPL', 'NVDA', 'SOL'],
  words: ['the', 'market', 'today', 'is', 'going', 'up', 'down', 'big', 'news', 'just', 'saw', 'this', 'love', 'new', 'launch', 'price', 'chart', 'week', 'now', 'amazing'],
  authorCount: 200,
  zipfExponent: 1.1,
  langs: [
    { code: 'en', weight: 70 },
    { code: 'es', weight: 10 },
    { code: 'fr', weight: 8 },
    { code: 'de', weight: 7 },
    { code: 'ja', weight: 5 },
  ],
  replyRate: 0.1,
  retweetRate: 0.05,
  cashtagRate: 0.2,
  likesPerPost: 1,
  seed: 42,
};

/** Layers validated overrides over a base, skipping unset fields. */
export function mergeGeneratorOptions(base: GeneratorOptions, overrides: GeneratorOverrides): GeneratorOptions {
  const parsed = generatorOverridesSchema.parse(overrides);
  const set = Object.fromEntries(Object.entries(parsed).filter(([, value]) => value !== undefined));
  return { ...base, ...set };
}
