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
#    (docs/workbook.css: max-width 100%). The graphs have no links, so nothing is lost. Both sites.

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

file(GLOB pages "${HTML_DIR}/*.html" "${HTML_DIR}/zh/*.html")
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

# 3. The language switch: every page of the English site (HTML_DIR) links to the same page of the
#    Chinese one (HTML_DIR/zh, same page ids, so the same file name) and back; a page the other site
#    does not have links to its main page. Each page also says its language (<html lang>), which lets
#    the browser pick a CJK font for the Chinese text.
function(add_language_switch dir other_dir other_prefix label lang)
  file(GLOB site_pages "${dir}/*.html")
  foreach(page IN LISTS site_pages)
    get_filename_component(name "${page}" NAME)
    set(target "${name}")
    if(NOT EXISTS "${other_dir}/${name}")
      set(target "index.html")
    endif()
    file(READ "${page}" html)
    string(FIND "${html}" "<div id=\"projectname\">" at)
    string(FIND "${html}" "id=\"workbook-lang\"" done)
    if(at EQUAL -1 OR NOT done EQUAL -1)
      continue()   # a page without Doxygen's title area (none today), or already switched
    endif()
    set(link "<div id=\"workbook-lang\"><a href=\"${other_prefix}${target}\" hreflang=\"${lang}\" lang=\"${lang}\">${label}</a></div>")
    string(REPLACE "<div id=\"projectname\">" "${link}<div id=\"projectname\">" html "${html}")
    file(WRITE "${page}" "${html}")
  endforeach()
endfunction()

if(EXISTS "${HTML_DIR}/zh/index.html")
  add_language_switch("${HTML_DIR}" "${HTML_DIR}/zh" "zh/" "中文" "zh-CN")
  add_language_switch("${HTML_DIR}/zh" "${HTML_DIR}" "../" "English" "en")
  file(GLOB zh_pages "${HTML_DIR}/zh/*.html")
  foreach(page IN LISTS zh_pages)
    file(READ "${page}" html)
    string(REPLACE "<html xmlns=\"http://www.w3.org/1999/xhtml\">" "<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"zh-CN\">"
           html "${html}")
    file(WRITE "${page}" "${html}")
  endforeach()
  # Chinese labels in the diagrams: the CJK font right after the family the graph names (Helvetica,
  # Times), before the generic one.
  file(GLOB zh_graphs "${HTML_DIR}/zh/*.svg")
  foreach(graph IN LISTS zh_graphs)
    file(READ "${graph}" svg)
    string(REGEX REPLACE "font-family=\"([^\",']+),([^\"']+)\"" "font-family=\"\\1,'Noto Sans CJK SC',\\2\"" fixed "${svg}")
    if(NOT fixed STREQUAL svg)
      file(WRITE "${graph}" "${fixed}")
    endif()
  endforeach()
endif()
