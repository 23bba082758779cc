"""The `guide` MkDocs plugin (`plugin`, its options in `config`), its markers, the page and site
rewrites, and `serve`, the local static host."""
