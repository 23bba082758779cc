"""Translation tooling: page skeletons, source stamps, gettext catalogs, status, and the `guide-i18n` CLI.

One Markdown scanner (`markdown`) reads fences and front matter for every module here.
"""
