# Run by the docs target after Doxygen (docs/CMakeLists.txt): makes the HTML folder self-contained
# and lets its diagrams scale.
#   -DHTML_DIR=<build>/docs/html   the site Doxygen wrote
#   -DMATHJAX_DIR=<folder>         a MathJax 2 installation (Debian's libjs-mathjax), or empty
#
# 1. MathJax: the parts the site loads (Doxygen's HTML-CSS output, the TeX input, tex2jax and the
#    AMS extensions, the TeX web fonts) are copied to HTML_DIR/mathjax, which MATHJAX_RELPATH names,
#    so formulas render when the folder is copied elsewhere or served over HTTP.
# 2. Diagrams: Doxygen 1.9 puts each inline dot graph in an <iframe> of fixed width, which cuts off a
#    graph wider than the page. An <img> of the same SVG scales with the stylesheet
#    (docs/workbook.css: max-width 100%). The graphs have no links, so nothing is lost.

if(MATHJAX_DIR AND EXISTS "${MATHJAX_DIR}/MathJax.js")
  set(dest "${HTML_DIR}/mathjax")
  file(MAKE_DIRECTORY "${dest}")
  file(COPY "${MATHJAX_DIR}/MathJax.js" "${MATHJAX_DIR}/extensions" DESTINATION "${dest}")
  foreach(part jax/element jax/input/TeX jax/output/HTML-CSS fonts/HTML-CSS/TeX/woff fonts/HTML-CSS/TeX/otf)
    if(NOT EXISTS "${MATHJAX_DIR}/${part}")
      continue()   # a packaging without it (e.g. no otf fonts): MathJax falls back on what is there
    endif()
    get_filename_component(parent "${dest}/${part}" DIRECTORY)
    file(MAKE_DIRECTORY "${parent}")
    file(COPY "${MATHJAX_DIR}/${part}" DESTINATION "${parent}")
  endforeach()
endif()

file(GLOB pages "${HTML_DIR}/*.html")
set(frame "<iframe scrolling=\"no\" frameborder=\"0\" src=\"(dot_inline_dotgraph_[0-9]+\\.svg)\" width=\"([0-9]+)\" height=\"([0-9]+)\">(<p><b>[^<]*</b></p>)?</iframe>")
foreach(page IN LISTS pages)
  file(READ "${page}" html)
  string(FIND "${html}" "src=\"dot_inline_dotgraph_" has_graph)
  if(has_graph EQUAL -1)
    continue()
  endif()
  string(REGEX REPLACE "${frame}" "<img class=\"workbook-graph\" src=\"\\1\" width=\"\\2\" height=\"\\3\" alt=\"diagram\"/>" scaled "${html}")
  if(NOT scaled STREQUAL html)
    file(WRITE "${page}" "${scaled}")
  endif()
endforeach()
