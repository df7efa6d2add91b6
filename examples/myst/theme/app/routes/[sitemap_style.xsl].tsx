export { sitemapStylesheetResponse as loader } from '@myst-theme/site';
