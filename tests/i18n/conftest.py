"""Fixtures for the translation workflow: copies of this project (never the real tree) and a tiny one."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from guidekit.i18n import cli as i18n_cli

ROOT = Path(__file__).resolve().parents[2]
# What `guide-i18n` reads: the config, the pages, the catalogs, and the sources babel.cfg extracts from.
PROJECT_PATHS = (
    "mkdocs.yml",
    "babel.cfg",
    "docs",
    "locales",
    "calculators",
    "gpuguide",
    "generator",
    "overrides",
    "pilot/result",
)


@pytest.fixture
def copy_of_project(tmp_path) -> Path:
    """This project's translatable files, copied; every translated page stamped against today's Spanish."""
    root = tmp_path / "project"
    for name in PROJECT_PATHS:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, root / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.mo"))
        else:
            root.mkdir(exist_ok=True)
            shutil.copy2(source, root / name)
    assert i18n_cli.main(["--root", str(root), "stamp", "--all", "--force"]) == 0
    return root


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


# The page rules want a description of 80 to 160 columns.
DESCRIPTION_ES = "La portada del sitio de prueba, en español, que las pruebas de las herramientas de traducción usan."
DESCRIPTION_FR = "La page d'accueil du site d'essai, en français, que les tests des outils de traduction utilisent."

PAGE_ES = """
    ---
    title: Memoria
    description: Una página de prueba para las herramientas de traducción, con párrafos, un bloque de código y tres secciones.
    ---

    # Memoria {#memory}

    Primer párrafo, con un [enlace](index.md).

    ## Entradas {#inputs}

    Segundo párrafo.

    ```python
    # no es un encabezado
    print("hola")
    ```

    ## Resultados {#results}

    Tercer párrafo.
    """

PAGE_FR = """
    ---
    title: Mémoire
    description: Une page d'essai pour les outils de traduction, avec des paragraphes, un bloc de code et trois sections.
    ---

    # Mémoire {#memory}

    Premier paragraphe, avec un [lien](index.md).

    ## Entrées {#inputs}

    Deuxième paragraphe.

    ```python
    # no es un encabezado
    print("hola")
    ```

    ## Résultats {#results}

    Troisième paragraphe.
    """


def po(locale: str, entries: dict[str, str]) -> str:
    body = "".join(f'\nmsgid "{msgid}"\nmsgstr "{msgstr}"\n' for msgid, msgstr in entries.items())
    return (
        f'msgid ""\nmsgstr ""\n"Language: {locale}\\n"\n"MIME-Version: 1.0\\n"\n'
        f'"Content-Type: text/plain; charset=utf-8\\n"\n"Content-Transfer-Encoding: 8bit\\n"\n' + body
    )


@pytest.fixture
def tiny_project(tmp_path) -> Path:
    """Spanish and French, two pages, one UI string: everything translated and stamped."""
    root = tmp_path / "tiny"
    write(
        root / "mkdocs.yml",
        """
        site_name: Mini
        docs_dir: docs
        plugins:
          - search
          - i18n:
              docs_structure: folder
              languages:
                - locale: es
                  default: true
                  name: Español
                  build: true
                - locale: fr
                  name: Français
                  build: true
                  site_name: Mini
                  site_description: Un site d'essai.
          - guide:
              completeness:
                fr: complete
        """,
    )
    write(root / "babel.cfg", "[python: src/**.py]\n")
    write(root / "src" / "labels.py", 'N_ = str\nGREETING = N_("{count} cards fit")\n')
    write(
        root / "docs" / "es" / "index.md",
        "---\ntitle: Inicio\ndescription: " + DESCRIPTION_ES + "\n---\n\n# Inicio {#home}\n\nHola.\n",
    )
    write(
        root / "docs" / "fr" / "index.md",
        "---\ntitle: Accueil\ndescription: " + DESCRIPTION_FR + "\n---\n\n# Accueil {#home}\n\nBonjour.\n",
    )
    write(root / "docs" / "es" / "memory.md", PAGE_ES)
    write(root / "docs" / "fr" / "memory.md", PAGE_FR)
    write(root / "locales" / "messages.pot", po("", {"{count} cards fit": ""}))
    write(
        root / "locales" / "es" / "LC_MESSAGES" / "messages.po",
        po("es", {"{count} cards fit": "Caben {count} tarjetas"}),
    )
    write(
        root / "locales" / "fr" / "LC_MESSAGES" / "messages.po",
        po("fr", {"{count} cards fit": "{count} cartes tiennent"}),
    )
    assert i18n_cli.main(["--root", str(root), "stamp", "--all"]) == 0
    return root


def guide_i18n(capsys, root: Path, *args: str) -> tuple[int, str]:
    """Runs `guide-i18n --root ROOT ARGS…`; (exit status, what it printed on stdout then stderr)."""
    capsys.readouterr()
    code = i18n_cli.main(["--root", str(root), *args])
    captured = capsys.readouterr()
    return code, captured.out + captured.err
