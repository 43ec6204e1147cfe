// @ts-check
'use strict';
// Every spelling of a resource's name that the generated code uses, derived from its plural
// kebab-case name ("books", "blog-posts") and, when English is irregular, a given singular.

const { GeneratorError } = require('./errors.cjs');

/** Plural → singular for the regular cases; `--singular` covers the rest. */
function singularOf(plural) {
  if (/[^aeiou]ies$/.test(plural)) return `${plural.slice(0, -3)}y`;
  if (/(ss|sh|ch|x|z)es$/.test(plural)) return plural.slice(0, -2);
  if (/[^s]s$/.test(plural)) return plural.slice(0, -1);
  return plural;
}

const words = (kebab) => kebab.split('-');
const capitalize = (word) => word.charAt(0).toUpperCase() + word.slice(1);
const camel = (kebab) =>
  words(kebab)
    .map((w, i) => (i === 0 ? w : capitalize(w)))
    .join('');
const pascal = (kebab) => words(kebab).map(capitalize).join('');

/** "a book", "an article": by the first letter, which is right for the usual nouns. */
const indefinite = (word) => (/^[aeiou]/.test(word) ? 'an' : 'a');

/**
 * @param {string} plural  kebab-case plural, e.g. "blog-posts"
 * @param {string} [singular]  kebab-case singular when the plural is irregular
 */
function namesOf(plural, singular = singularOf(plural)) {
  if (singular === plural) {
    throw new GeneratorError(`cannot tell the singular of "${plural}" (it would be the same word): name it with --singular <name>`);
  }
  const human = words(singular).join(' ');
  const humanPlural = words(plural).join(' ');
  return {
    /** URL segment, folder, database, collection, compose service and upstream: "blog-posts". */
    plural,
    /** File names: "blog-post" (blog-post.routes.ts). */
    singular,
    /** Variables: "blogPost", "blogPosts". */
    camel: camel(singular),
    camelPlural: camel(plural),
    /** Types: "BlogPost", "BlogPosts". */
    pascal: pascal(singular),
    pascalPlural: pascal(plural),
    /** Environment keys: "BLOG_POSTS" (BLOG_POSTS_URL, BLOG_POSTS_PORT). */
    upper: plural.replace(/-/g, '_').toUpperCase(),
    /** Error codes: "blog_post" (blog_post_not_found). */
    snake: singular.replace(/-/g, '_'),
    /** Prose: "blog post", "blog posts", "a blog post". */
    human,
    humanPlural,
    /** "a" or "an", for the singular. */
    article: indefinite(singular),
  };
}

module.exports = { namesOf, singularOf, capitalize };
