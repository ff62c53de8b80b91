/// The inspector's page: plain HTML, CSS and a little JavaScript, served by the binary (no build
/// step, no CDN). The script renders every value with `textContent`, never as markup.
enum InspectorPage {
    /// The page; `token` (letters and digits only) is what the script sends with each request.
    static func html(token: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>msync inspect</title>
        <link rel="icon" href="data:,"><link rel="stylesheet" href="/app.css?token=\(token)"></head>
        <body data-token="\(token)">
        <header><h1>msync inspect</h1><span id="org-label"></span></header>
        <nav>
          <button id="tab-soups" data-view="soups">Soups</button>
          <button id="tab-query" data-view="query">Smart SQL</button>
          <button id="tab-record" data-view="record">Record</button>
          <button id="tab-syncs" data-view="syncs">Syncs</button>
          <button id="tab-conflicts" data-view="conflicts">Conflicts</button>
          <button id="tab-org" data-view="org">Org</button>
        </nav>
        <main>
        <section id="view-soups"><h2>Soups</h2><table id="soups-table"></table></section>
        <section id="view-query" hidden><h2>Smart SQL</h2>
          <textarea id="sql" rows="4" spellcheck="false">select {syncs_soup:name}, {syncs_soup:status} from {syncs_soup}</textarea>
          <div class="bar"><button id="run">Run</button>
            <button id="prev" disabled>Previous</button><button id="next" disabled>Next</button>
            <span id="page-label"></span></div>
          <div id="query-error" class="error" hidden></div>
          <div id="results"></div></section>
        <section id="view-record" hidden><h2>Record</h2>
          <div class="bar"><label>Soup <input id="record-soup" size="16"></label>
            <label>Entry id <input id="record-id" size="8"></label><button id="record-open">Open</button></div>
          <div id="record-error" class="error" hidden></div>
          <div id="record-flags"></div><div id="record-last-error" class="error" hidden></div>
          <div id="record-conflict" hidden><h3>In conflict: <span id="record-conflict-kind"></span></h3>
            <table id="record-conflict-table"></table></div>
          <pre id="record-json"></pre></section>
        <section id="view-conflicts" hidden><h2>Conflicts</h2><p class="note">Records a sync left alone because they changed
          on both sides; resolve them with SyncManager.resolveConflict. Read again every second.</p>
          <table id="conflicts-table"></table></section>
        <section id="view-syncs" hidden><h2>Syncs</h2><p class="note">Read again every second.
          <span id="syncs-updated"></span></p><table id="syncs-table"></table></section>
        <section id="view-org" hidden><h2>Store and org side by side</h2>
          <div class="bar"><label>Soup <select id="compare-soup"></select></label><button id="compare-run">Compare</button>
            <button id="compare-prev" disabled>Previous</button><button id="compare-next" disabled>Next</button></div>
          <div id="compare-error" class="error" hidden></div>
          <table id="compare-table"></table></section>
        </main>
        <script src="/app.js?token=\(token)"></script>
        </body></html>
        """
    }

    static let style = """
        body { font-family: system-ui, sans-serif; margin: 0; color: #1d2430; background: #f6f7f9; }
        header { display: flex; align-items: baseline; gap: 1rem; padding: .6rem 1.2rem; background: #1d2430; color: #fff; }
        header h1 { font-size: 1.1rem; margin: 0; }
        #org-label { font-size: .85rem; opacity: .8; }
        nav { display: flex; gap: .3rem; padding: .5rem 1.2rem; background: #e3e6eb; }
        nav button { border: 0; background: none; padding: .35rem .8rem; border-radius: .3rem; cursor: pointer; font-size: .95rem; }
        nav button.active { background: #fff; font-weight: 600; }
        main { padding: .5rem 1.2rem 2rem; }
        h2 { font-size: 1rem; }
        table { border-collapse: collapse; background: #fff; font-size: .85rem; max-width: 100%; }
        th, td { border: 1px solid #d5d9e0; padding: .25rem .5rem; text-align: left; vertical-align: top; }
        th { background: #eef0f4; }
        td { max-width: 28rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        textarea { width: 100%; box-sizing: border-box; font-family: ui-monospace, monospace; font-size: .9rem; }
        .bar { display: flex; gap: .5rem; align-items: center; margin: .5rem 0; }
        .error { background: #fde8e8; color: #8a1c1c; border: 1px solid #f3b4b4; padding: .5rem; margin: .5rem 0; white-space: pre-wrap; }
        .note { font-size: .8rem; color: #5b6472; }
        .badge { display: inline-block; padding: .05rem .4rem; margin-right: .3rem; border-radius: .6rem; font-size: .75rem; background: #e3e6eb; }
        .badge.on { background: #ffe8b3; }
        .state-dirty { background: #fff8e1; }
        .state-changed { background: #e8f1ff; }
        tr.link { cursor: pointer; }
        tr.link:hover { background: #f0f3f8; }
        #record-conflict h3 { font-size: .95rem; color: #a4262c; }
        .state-gone { background: #fde8e8; }
        .status-RUNNING { color: #0b61c4; font-weight: 600; }
        .status-FAILED { color: #a11; font-weight: 600; }
        .status-DONE { color: #17692f; }
        pre { background: #fff; border: 1px solid #d5d9e0; padding: .6rem; overflow: auto; font-size: .85rem; }
        a { color: #0b61c4; cursor: pointer; }
        """

    static let script = """
        "use strict";
        const token = document.body.dataset.token;
        const state = { queryPage: 0, comparePage: 0, sql: "" };

        async function api(endpoint, params) {
          // encodeURIComponent, not URLSearchParams: a space must not travel as "+".
          const query = Object.entries(params || {}).map(([name, value]) => encodeURIComponent(name) + "=" + encodeURIComponent(value)).join("&");
          const response = await fetch("/api/" + endpoint + (query ? "?" + query : ""), { headers: { "X-Inspector-Token": token } });
          const body = await response.json();
          if (!response.ok) { throw new Error(body.error || response.statusText); }
          return body;
        }

        function element(tag, text, className) {
          const node = document.createElement(tag);
          if (text !== undefined && text !== null) { node.textContent = text; }
          if (className) { node.className = className; }
          return node;
        }

        function cellText(value) {
          if (value === null || value === undefined) { return ""; }
          return typeof value === "object" ? JSON.stringify(value) : String(value);
        }

        function fillTable(table, columns, rows, decorate) {
          table.replaceChildren();
          const head = element("tr");
          columns.forEach(name => head.appendChild(element("th", name)));
          table.appendChild(head);
          rows.forEach((row, index) => {
            const line = element("tr");
            row.forEach(value => { const cell = element("td", cellText(value)); cell.title = cellText(value); line.appendChild(cell); });
            if (decorate) { decorate(line, index); }
            table.appendChild(line);
          });
        }

        // The store counts positions in UTF-8 bytes; the text area in UTF-16 units.
        function utf16Offset(text, bytes) {
          let count = 0;
          for (let index = 0; index < text.length; index++) {
            if (count >= bytes) { return index; }
            const code = text.codePointAt(index);
            count += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
            if (code > 0xFFFF) { index++; }
          }
          return text.length;
        }

        function show(view) {
          document.querySelectorAll("main > section").forEach(section => { section.hidden = section.id !== "view-" + view; });
          document.querySelectorAll("nav button").forEach(button => button.classList.toggle("active", button.dataset.view === view));
        }

        function showError(id, message) {
          const box = document.getElementById(id);
          box.hidden = !message;
          box.textContent = message || "";
        }

        async function loadSoups() {
          const answer = await api("soups");
          document.getElementById("org-label").textContent = answer.org ? "org: " + answer.org : "no org (start with --org and --token)";
          document.getElementById("tab-org").hidden = !answer.org;
          const select = document.getElementById("compare-soup");
          select.replaceChildren();
          answer.soups.forEach(soup => { if (soup.name !== "syncs_soup") { select.appendChild(element("option", soup.name)); } });
          fillTable(document.getElementById("soups-table"), ["soup", "entries", "index specs"],
            answer.soups.map(soup => [soup.name, soup.entries, soup.indexSpecs.map(spec => spec.path + " (" + spec.type + ")").join(", ")]),
            (line, index) => {
              const name = answer.soups[index].name;
              const link = element("a", name);
              link.dataset.soup = name;
              link.addEventListener("click", () => {
                document.getElementById("sql").value = "select {" + name + ":_soupEntryId}, {" + name + ":_soup} from {" + name + "}";
                show("query");
                runQuery(0);
              });
              line.firstChild.replaceChildren(link);
            });
        }

        async function runQuery(page) {
          const sql = document.getElementById("sql").value;
          state.queryPage = page;
          state.sql = sql;
          try {
            const answer = await api("query", { sql: sql, page: page });
            showError("query-error", "");
            // Entries link to the record view when the query names one soup (its entries are the
            // `soup` columns); in a join an entry's soup cannot be told from its column.
            const soups = new Set(Array.from(sql.matchAll(/\\{([A-Za-z0-9_]+)[:}]/g), match => match[1]));
            const soup = soups.size === 1 ? Array.from(soups)[0] : null;
            const entryColumns = answer.columns.map(name => name === "soup" || name.startsWith("soup:"));
            const table = element("table");
            table.id = "results-table";
            fillTable(table, answer.columns, answer.rows, (line, index) => {
              answer.rows[index].forEach((value, column) => {
                if (!soup || !entryColumns[column] || !value || typeof value !== "object" || value._soupEntryId === undefined) { return; }
                const cell = line.children[column];
                const link = element("a", "open #" + value._soupEntryId, "open-record");
                link.addEventListener("click", () => openRecord(soup, value._soupEntryId));
                cell.replaceChildren(link, document.createTextNode(" " + cell.title));
              });
            });
            document.getElementById("results").replaceChildren(table);
            document.getElementById("page-label").textContent = "page " + (page + 1) + ", " + answer.rows.length + " rows";
            document.getElementById("prev").disabled = page === 0;
            document.getElementById("next").disabled = !answer.more;
          } catch (error) {
            document.getElementById("results").replaceChildren();
            showError("query-error", error.message);
            // Point at the place SQLite or the translator names ("at character N").
            const at = /at character (\\d+)/.exec(error.message);
            if (at) {
              const textarea = document.getElementById("sql");
              const start = utf16Offset(textarea.value, +at[1]);
              textarea.focus();
              textarea.setSelectionRange(start, start + 1);
            }
          }
        }

        async function openRecord(soup, id) {
          show("record");
          document.getElementById("record-soup").value = soup;
          document.getElementById("record-id").value = id;
          try {
            const answer = await api("record", { soup: soup, id: id });
            showError("record-error", "");
            const flags = document.getElementById("record-flags");
            flags.replaceChildren();
            Object.keys(answer.flags).sort().forEach(name => {
              flags.appendChild(element("span", name + ": " + cellText(answer.flags[name]), "badge" + (answer.flags[name] === true ? " on" : "")));
            });
            showError("record-last-error", answer.lastError ? "Last error: " + JSON.stringify(answer.lastError, null, 2) : "");
            const conflict = answer.conflict;
            document.getElementById("record-conflict").hidden = !conflict;
            if (conflict) {
              document.getElementById("record-conflict-kind").textContent = conflict.kind;
              fillTable(document.getElementById("record-conflict-table"), ["field", "base (as last synced)", "local", "server"],
                conflict.fields.map(name => [name, conflict.base ? cellText(conflict.base[name]) : "",
                  cellText(conflict.local[name]), conflict.server ? cellText(conflict.server[name]) : "(deleted)"]),
                line => line.classList.add("state-changed"));
            }
            document.getElementById("record-json").textContent = JSON.stringify(answer.entry, null, 2);
          } catch (error) {
            showError("record-error", error.message);
            document.getElementById("record-json").textContent = "";
          }
        }

        async function refreshSyncs() {
          try {
            const answer = await api("syncs");
            // The same columns as `msync syncs`.
            const name = answer.columns.indexOf("name"), status = answer.columns.indexOf("status");
            fillTable(document.getElementById("syncs-table"), answer.columns, answer.rows, (line, index) => {
              const row = answer.rows[index];
              line.dataset.sync = row[name] || String(row[0]);
              line.children[status].className = "status-" + row[status];
            });
            document.getElementById("syncs-updated").textContent = "Updated " + new Date().toLocaleTimeString() + ".";
          } catch (error) {
            document.getElementById("syncs-updated").textContent = error.message;
          }
        }

        async function refreshConflicts() {
          try {
            const answer = await api("conflicts");
            fillTable(document.getElementById("conflicts-table"), ["soup", "entry", "Id", "kind", "fields", "local", "server"],
              answer.conflicts.map(conflict => [conflict.soup, conflict.entryId, conflict.local.Id, conflict.kind,
                conflict.fields.join(", "), conflict.fields.map(name => name + ": " + cellText(conflict.local[name])).join("; "),
                conflict.server ? conflict.fields.map(name => name + ": " + cellText(conflict.server[name])).join("; ") : "(deleted)"]),
              (line, index) => {
                const conflict = answer.conflicts[index];
                line.classList.add("link");
                line.addEventListener("click", () => openRecord(conflict.soup, conflict.entryId));
              });
          } catch (error) {
            document.getElementById("conflicts-table").replaceChildren(element("caption", error.message));
          }
        }

        async function compare(page) {
          state.comparePage = page;
          const soup = document.getElementById("compare-soup").value;
          try {
            const answer = await api("compare", { soup: soup, page: page });
            showError("compare-error", "");
            fillTable(document.getElementById("compare-table"), ["entry", "Id", "state", "differences (store → org)"],
              answer.rows.map(row => [row.entryId, row.Id, row.states.join(", "),
                row.differs.map(name => name + ": " + cellText(row.local[name]) + " → " + cellText(row.server[name])).join("; ")]),
              (line, index) => {
                const states = answer.rows[index].states;
                line.dataset.id = answer.rows[index].Id || "";
                if (states.includes("gone on the server")) { line.classList.add("state-gone"); }
                else if (states.includes("changed on the server")) { line.classList.add("state-changed"); }
                else if (states.includes("dirty locally")) { line.classList.add("state-dirty"); }
              });
            document.getElementById("compare-prev").disabled = page === 0;
            document.getElementById("compare-next").disabled = !answer.more;
          } catch (error) {
            showError("compare-error", error.message);
          }
        }

        document.querySelectorAll("nav button").forEach(button => button.addEventListener("click", () => show(button.dataset.view)));
        document.getElementById("run").addEventListener("click", () => runQuery(0));
        document.getElementById("prev").addEventListener("click", () => runQuery(Math.max(0, state.queryPage - 1)));
        document.getElementById("next").addEventListener("click", () => runQuery(state.queryPage + 1));
        document.getElementById("record-open").addEventListener("click",
          () => openRecord(document.getElementById("record-soup").value, document.getElementById("record-id").value));
        document.getElementById("compare-run").addEventListener("click", () => compare(0));
        document.getElementById("compare-prev").addEventListener("click", () => compare(Math.max(0, state.comparePage - 1)));
        document.getElementById("compare-next").addEventListener("click", () => compare(state.comparePage + 1));
        loadSoups().catch(error => showError("query-error", error.message));
        refreshSyncs();
        refreshConflicts();
        setInterval(() => { refreshSyncs(); refreshConflicts(); }, 1000);
        """
}
