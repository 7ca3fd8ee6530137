// Searches the page's flame graphs (internal/flame): typing into an input.flame-search
// highlights every frame whose function name holds the text, in every graph.
(function () {
  function search(q) {
    q = q.trim().toLowerCase();
    var n = 0;
    document.querySelectorAll('svg.flame g[data-fn]').forEach(function (g) {
      var hit = q !== '' && g.getAttribute('data-fn').toLowerCase().indexOf(q) >= 0;
      g.classList.toggle('match', hit);
      if (hit) { n++; }
    });
    document.querySelectorAll('.flame-matches').forEach(function (s) {
      s.textContent = q === '' ? '' : n + (n === 1 ? ' frame matches' : ' frames match');
    });
    document.querySelectorAll('input.flame-search').forEach(function (other) {
      if (other.value.trim().toLowerCase() !== q) { other.value = q; }
    });
  }
  document.querySelectorAll('input.flame-search').forEach(function (input) {
    input.addEventListener('input', function () { search(input.value); });
  });
})();
