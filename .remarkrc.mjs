// `npm run docs:links` (part of `npm test`): remark-validate-links checks,
// offline, that every relative link of the Markdown files points at a file
// that exists and every `#anchor` at a heading there (GitHub's slugs).
// `repository: false`: links to the repository's own web pages are left
// alone, as nothing here may reach the network.
import remarkValidateLinks from 'remark-validate-links';

export default {
  plugins: [[remarkValidateLinks, { repository: false }]],
};
