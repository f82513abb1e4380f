// Neighbourhood view: Cytoscape.js over the JSON the page embeds; a click on a node
// selects it and, when it has neighbours not shown yet, asks the API for them.
// Every text from the graph is put in with textContent or as a Cytoscape label (canvas):
// never as HTML.
(function () {
  "use strict";
  var script = document.currentScript;
  var data = JSON.parse(document.getElementById("graph-data").textContent);
  var apiTemplate = script.dataset.api;
  var entityTemplate = script.dataset.entity;
  var container = document.getElementById("graph-canvas");
  var selected = document.getElementById("graph-selected");
  var more = document.getElementById("graph-more");
  var status = document.getElementById("graph-status");
  var legend = document.getElementById("graph-legend");
  var PAGE = 30;
  // Labels get colours in order of appearance, from a palette whose neighbours differ in
  // hue and lightness (the first labels, e.g. Project and Topic, never look alike).
  var palette = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#edc948",
                 "#76b7b2", "#9c755f", "#ff9da7", "#1d3557", "#8cd17d", "#d37295"];
  var colours = {};
  var expanded = {}; // node id -> how many neighbours were asked for so far

  function segment(value) {
    return encodeURIComponent(value).replace(/%2F/g, "/");
  }
  function url(template, label, name) {
    return template.replace("LABEL", segment(label)).replace("NAME", segment(name));
  }
  function colour(label) {
    if (!(label in colours)) {
      colours[label] = palette[Object.keys(colours).length % palette.length];
      var li = document.createElement("li");
      var swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.background = colours[label];
      li.appendChild(swatch);
      li.appendChild(document.createTextNode(label));
      legend.appendChild(li);
    }
    return colours[label];
  }
  function element(node) {
    var isSource = node.kind === "source";
    return {
      group: "nodes",
      data: {
        id: node.id, name: node.name, label: node.label, kind: node.kind,
        mentions: node.mentions || 0, degree: node.degree || 0, detail: node.detail || "",
        colour: isSource ? "#adb5bd" : colour(node.label),
        size: isSource ? 14 : Math.min(48, 18 + 4 * Math.sqrt(node.mentions || 0)),
      },
      classes: (isSource ? "source" : "entity") + (node.level === 0 ? " center" : "") +
        " level" + (node.level || 0),
    };
  }
  function edge(e) {
    return { group: "edges", data: { id: "e" + e.id, source: e.source, target: e.target, type: e.type },
             classes: (e.type === "EXTRACTED_FROM" ? "provenance" : "") + (deep ? " quiet" : "") };
  }
  function add(nodes, edges) {
    var fresh = [];
    nodes.forEach(function (n) { if (cy.getElementById(n.id).empty()) { fresh.push(element(n)); } });
    edges.forEach(function (e) {
      if (cy.getElementById("e" + e.id).empty()) { fresh.push(edge(e)); }
    });
    var added = cy.add(fresh.filter(function (el) { return el.group === "nodes"; }));
    cy.add(fresh.filter(function (el) {
      return el.group === "edges" && !cy.getElementById(el.data.source).empty() &&
        !cy.getElementById(el.data.target).empty();
    }));
    return added;
  }
  // Depth 1: a force layout. Depth 2 (a hundred nodes and more): rings by distance from
  // the entity (its neighbours, then theirs), spaced so that no two nodes' labels overlap;
  // the edge labels are shown for the selected node only (tens of them printed over each
  // other otherwise).
  var deep = data.nodes.some(function (n) { return n.level === 2; });
  function layout(animate) {
    if (deep) {
      cy.layout({ name: "concentric", animate: animate, fit: true, padding: 20,
                  concentric: function (n) { return n.hasClass("level0") ? 3 : n.hasClass("level1") ? 2 : 1; },
                  levelWidth: function () { return 1; }, minNodeSpacing: 14, spacingFactor: 1.1,
                  avoidOverlap: true, nodeDimensionsIncludeLabels: true }).run();
      return;
    }
    cy.layout({ name: "cose", animate: animate, randomize: false, nodeRepulsion: 20000,
                nodeOverlap: 40, idealEdgeLength: 120, numIter: 800, fit: true, padding: 20,
                nodeDimensionsIncludeLabels: true }).run();
  }
  // New neighbours go on a ring around the node that was expanded; the nodes already on
  // the canvas keep their places.
  function placeAround(node, added) {
    var centre = node.position();
    var radius = 70 + 6 * added.length;
    added.forEach(function (n, i) {
      var angle = (2 * Math.PI * i) / Math.max(1, added.length);
      n.position({ x: centre.x + radius * Math.cos(angle), y: centre.y + radius * Math.sin(angle) });
    });
    cy.animate({ fit: { eles: cy.elements(), padding: 20 } }, { duration: 200 });
  }
  function shown(node) {
    return node.connectedEdges().not(".provenance").connectedNodes().not(node).length;
  }
  function describe(node) {
    selected.textContent = "";
    var title = document.createElement("p");
    var strong = document.createElement("strong");
    strong.textContent = node.data("name");
    title.appendChild(strong);
    title.appendChild(document.createTextNode(" " + node.data("label")));
    selected.appendChild(title);
    if (node.data("kind") === "source") {
      var p = document.createElement("p");
      p.className = "muted";
      p.textContent = "Provenance: the source this entity was extracted from. " + node.data("detail");
      selected.appendChild(p);
      more.textContent = "";
      return;
    }
    var facts = document.createElement("p");
    facts.className = "muted";
    facts.textContent = node.data("mentions") + " mentions · " + node.data("degree") +
      " neighbours, " + shown(node) + " shown";
    selected.appendChild(facts);
    var link = document.createElement("a");
    link.href = url(entityTemplate, node.data("label"), node.data("name"));
    link.textContent = "Open its page »";
    selected.appendChild(link);
    more.textContent = "";
    if (shown(node) < node.data("degree")) {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = "Show " + Math.min(PAGE, node.data("degree") - shown(node)) + " more";
      button.addEventListener("click", function () { expand(node); });
      more.appendChild(button);
    }
  }
  function expand(node) {
    var offset = expanded[node.id()] || 0;
    if (node.hasClass("center") && offset === 0) { offset = data.shown_neighbours; }
    var api = url(apiTemplate, node.data("label"), node.data("name")) +
      "?depth=1&limit=" + PAGE + "&offset=" + offset;
    status.textContent = "Loading neighbours of " + node.data("name") + "…";
    fetch(api, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.json().then(function (body) { return [r.ok, body]; }); })
      .then(function (result) {
        if (!result[0]) { throw new Error(result[1].error ? result[1].error.message : "failed"); }
        var body = result[1];
        expanded[node.id()] = offset + body.shown_neighbours;
        var added = add(body.nodes.filter(function (n) { return n.kind === "entity"; }),
                        body.edges.filter(function (e) { return e.type !== "EXTRACTED_FROM"; }));
        status.textContent = "Added " + added.length + " node(s) around " + node.data("name") +
          " (" + expanded[node.id()] + " of " + body.total_neighbours + " neighbours asked for).";
        placeAround(node, added);
        describe(node);
      })
      .catch(function (err) { status.textContent = "Could not expand: " + err.message; });
  }

  // The default wheel zoom: a custom wheelSensitivity makes Cytoscape warn on every load.
  var cy = cytoscape({
    container: container,
    style: [
      { selector: "node", style: {
        "background-color": "data(colour)", label: "data(name)", width: "data(size)",
        height: "data(size)", "font-size": 10, "text-valign": "bottom", "text-margin-y": 3,
        "text-wrap": "ellipsis", "text-max-width": 90, color: "#212529",
        // Labels on a light plate, and hidden while they would be too small to read, so
        // crowded labels do not print over each other.
        "text-background-color": "#ffffff", "text-background-opacity": 0.75,
        "text-background-padding": 1, "min-zoomed-font-size": 7 } },
      { selector: "node.center", style: { "border-width": 3, "border-color": "#212529", "font-weight": "bold" } },
      { selector: "node.source", style: { shape: "round-rectangle", "font-size": 8, color: "#868e96" } },
      { selector: "node:selected", style: { "border-width": 3, "border-color": "#f59f00" } },
      { selector: "edge", style: {
        width: 1.2, "line-color": "#adb5bd", "target-arrow-color": "#adb5bd",
        "target-arrow-shape": "triangle", "curve-style": "bezier", label: "data(type)",
        "font-size": 7, color: "#868e96", "text-rotation": "autorotate" } },
      { selector: "edge.provenance", style: { "line-style": "dashed", label: "" } },
      { selector: "edge.quiet", style: { label: "" } },
      { selector: "edge.quiet.near", style: { label: "data(type)" } },
    ],
  });
  add(data.nodes, data.edges);
  layout(false);
  cy.on("select", "node", function (evt) { evt.target.connectedEdges().addClass("near"); });
  cy.on("unselect", "node", function (evt) { evt.target.connectedEdges().removeClass("near"); });
  cy.on("tap", "node", function (evt) {
    var node = evt.target;
    describe(node);
    if (node.data("kind") === "entity" && !(node.id() in expanded) && !node.hasClass("center") &&
        shown(node) < node.data("degree")) {
      expand(node);
    }
  });
  var center = cy.nodes(".center");
  if (center.length) { center.select(); describe(center[0]); }
  window.qqGraph = cy; // for the screenshot script and the curious
})();
