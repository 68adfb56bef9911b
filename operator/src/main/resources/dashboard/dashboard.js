// Berth dashboard: polls /dashboard/api/v1/state with the caller's bearer token and renders
// semantic tables. Plain DOM (textContent only: names and messages never become markup).
// Polling rather than Server-Sent Events: EventSource cannot send an Authorization header, and a
// token in the URL would end up in logs.
'use strict';

(function () {
  const POLL_MS = 3000;
  const STATE = 'api/v1/state';
  const TOKEN_KEY = 'berth-token';
  const expanded = new Set();
  const rendered = {};
  let timer = null;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'text') node.textContent = v;
      else if (k.startsWith('data-')) node.setAttribute(k, v);
      else if (k === 'class') node.className = v;
      else node.setAttribute(k, v === true ? '' : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  function table(caption, headers, rows) {
    const numeric = new Set(headers.filter(h => h.num).map(h => h.label));
    return el('table', {},
      el('caption', {text: caption}),
      el('thead', {}, el('tr', {}, headers.map(h =>
        el('th', {scope: 'col', class: h.num ? 'num' : null, text: h.label})))),
      el('tbody', {}, rows.map(cells => el('tr', {}, cells.map((c, i) => {
        const label = headers[i].label;
        if (i === 0 && headers[0].rowHeader) {
          return el('th', {scope: 'row'}, c);
        }
        return el('td', {class: numeric.has(label) ? 'num' : null}, c);
      })))));
  }

  function none(text) {
    return el('p', {class: 'none', text: text});
  }

  /** Replaces a section's content only when its data changed, keeping the focused control. */
  function render(id, data, build) {
    const json = JSON.stringify(data);
    if (rendered[id] === json) return;
    rendered[id] = json;
    const body = document.getElementById(id + '-body');
    const focused = document.activeElement;
    const key = focused && body.contains(focused) ? focused.getAttribute('data-focus-key') : null;
    body.replaceChildren(...[build(data)].flat());
    if (key) {
      const again = body.querySelector('[data-focus-key="' + CSS.escape(key) + '"]');
      if (again) again.focus();
    }
  }

  function queues(cqs) {
    if (cqs === null) return none('You may not list ClusterQueues (list clusterqueues.berth.dev).');
    if (cqs.length === 0) return none('No ClusterQueues.');
    const summary = table('ClusterQueues', [
      {label: 'ClusterQueue', rowHeader: true}, {label: 'Cohort'},
      {label: 'Pending: active', num: true}, {label: 'Pending: inadmissible', num: true},
      {label: 'Admitted', num: true}, {label: 'Status'}],
      cqs.map(q => [q.name, q.cohort || '—', q.pendingActive, q.pendingInadmissible,
        q.admitted, q.inactiveMessage ? 'Inactive: ' + q.inactiveMessage : 'Active']));
    const rows = [];
    for (const q of cqs) {
      for (const r of q.resources) {
        const v = r.values;
        const max = v.borrowingLimit === null ? v.nominal : v.nominal + v.borrowingLimit;
        const label = r.usage + ' of ' + r.nominal + ' nominal' +
          (r.borrowingLimit === null ? '' : ' + ' + r.borrowingLimit + ' borrowable');
        rows.push([q.name, r.flavor, r.resource, r.usage, r.nominal, r.borrowed,
          r.borrowingLimit === null ? 'none' : r.borrowingLimit,
          r.lendingLimit === null ? 'none' : r.lendingLimit,
          el('meter', {min: 0, max: Math.max(1, max), value: v.usage, high: v.nominal,
            'aria-label': q.name + ' ' + r.flavor + ' ' + r.resource + ': ' + label,
            title: label})]);
      }
    }
    const usage = table('Quota usage per flavor and resource', [
      {label: 'ClusterQueue', rowHeader: true}, {label: 'Flavor'}, {label: 'Resource'},
      {label: 'In use', num: true}, {label: 'Nominal', num: true}, {label: 'Borrowed', num: true},
      {label: 'Borrowing limit', num: true}, {label: 'Lending limit', num: true},
      {label: 'Use'}], rows);
    return [summary, usage];
  }

  function cohorts(list) {
    if (list === null) return none('You may not list ClusterQueues, so cohorts are hidden.');
    if (list.length === 0) return none('No cohorts.');
    return table('Cohorts', [{label: 'Cohort', rowHeader: true}, {label: 'Parent'},
      {label: 'ClusterQueues'}, {label: 'Weighted share', num: true}, {label: 'Status'}],
      list.map(c => [c.name, c.parent || '—', c.clusterQueues.join(', ') || '—',
        (c.weightedShare / 1000).toFixed(3),
        c.inactiveMessage ? 'Inactive: ' + c.inactiveMessage : 'Active']));
  }

  function budgets(list) {
    if (list === null) return none('You may not list Budgets, so they are hidden.');
    if (list.length === 0) return none('No budgets.');
    const rows = [];
    for (const b of list) {
      for (const r of b.resources) {
        rows.push([b.name, b.target, b.window, r.resource, r.usedHours, r.limitHours,
          b.exhausted ? 'Exhausted: new workloads wait' : 'Within budget',
          new Date(b.resetsAt).toISOString().slice(0, 16) + 'Z']);
      }
    }
    return table('Resource-hours used in the current window', [
      {label: 'Budget', rowHeader: true}, {label: 'For'}, {label: 'Window'},
      {label: 'Resource'}, {label: 'Used hours', num: true}, {label: 'Limit hours', num: true},
      {label: 'Status'}, {label: 'Resets (UTC)'}], rows);
  }

  function requests(map) {
    return Object.entries(map).map(([k, v]) => k + ' ' + v).join(', ');
  }

  // The object a Workload was made for: "RayJob/train", "Pod/web-0 +3" for a pod group of four.
  function owner(o) {
    if (!o) return '—';
    return o.kind + '/' + o.name + (o.count > 1 ? ' +' + (o.count - 1) : '');
  }

  function pending(queues) {
    if (queues.length === 0) return none('Nothing pending that you may list.');
    return queues.map(q => {
      const withEstimates = q.items.some(i => i.estimatedStart);
      const headers = [{label: 'Position', num: true, rowHeader: true},
        {label: 'In LocalQueue', num: true}, {label: 'Workload'}, {label: 'Namespace'},
        {label: 'LocalQueue'}, {label: 'Priority', num: true}, {label: 'Requests'},
        {label: 'Reason'}, {label: 'Owner'}, {label: 'Owner status'}];
      if (withEstimates) headers.push({label: 'Estimated start'});
      const shown = q.items.length === q.visible ? q.visible + ' shown'
        : 'the first ' + q.items.length + ' of ' + q.visible + ' shown';
      const t = table('Pending in ClusterQueue ' + q.clusterQueue + ' (' + shown +
        '), in admission order', headers, []);
      const tbody = t.querySelector('tbody');
      if (q.items.length === 0) {
        tbody.append(el('tr', {}, el('td', {colspan: headers.length, class: 'none',
          text: 'None.'})));
      }
      for (const i of q.items) {
        const key = q.clusterQueue + '/' + i.namespace + '/' + i.name;
        const messageId = 'why-' + key.replace(/[^A-Za-z0-9_-]/g, '_');
        const open = expanded.has(key);
        const button = el('button', {type: 'button', class: 'why', 'data-focus-key': key,
          'aria-expanded': open ? 'true' : 'false', 'aria-controls': messageId,
          text: i.name});
        button.addEventListener('click', () => {
          if (expanded.has(key)) expanded.delete(key); else expanded.add(key);
          const row = document.getElementById(messageId);
          row.hidden = !expanded.has(key);
          button.setAttribute('aria-expanded', expanded.has(key) ? 'true' : 'false');
        });
        const cells = [i.positionInClusterQueue, i.positionInLocalQueue, button, i.namespace,
          i.localQueueName, i.priority, requests(i.requests), i.reason, owner(i.owner),
          (i.owner && i.owner.status) || '—'];
        if (withEstimates) cells.push(i.estimatedStart || '—');
        tbody.append(el('tr', {}, cells.map((c, n) => n === 0
          ? el('th', {scope: 'row', class: 'num'}, c)
          : el('td', {class: headers[n].num ? 'num' : null}, c))));
        tbody.append(el('tr', {id: messageId, class: 'message', hidden: !open},
          el('td', {colspan: headers.length, text: 'Why it waits: ' + i.message})));
      }
      return t;
    });
  }

  function recent(list) {
    if (list.length === 0) return none('No admissions, evictions or preemptions yet.');
    return table('Admissions, evictions and preemptions, newest first', [
      {label: 'Time', rowHeader: true}, {label: 'Decision'}, {label: 'Workload'},
      {label: 'ClusterQueue'}, {label: 'Reason'}, {label: 'Detail'}],
      list.map(d => [new Date(d.time).toLocaleTimeString(), d.kind,
        d.namespace + '/' + d.name, d.clusterQueue, d.reason,
        d.kind === 'Preempted'
          ? 'for ' + (d.preemptor || 'a workload you may not list') +
            (d.message ? ': ' + d.message : '')
          : (d.message || '')]));
  }

  function topology(flavors) {
    if (flavors === null) return none('You may not list Topologies (list topologies.berth.dev).');
    if (flavors.length === 0) return none('No topology-aware flavors.');
    const out = [];
    for (const f of flavors) {
      for (const l of f.levels) {
        const resources = Object.keys(l.largestGang);
        const gangs = resources.map(r => r + ' ' + l.largestGang[r]).join(', ');
        out.push(table('Flavor ' + f.flavor + ', level ' + l.level +
          ': free capacity per domain; largest one-unit gang in one domain: ' + gangs,
          [{label: 'Domain', rowHeader: true}].concat(resources.map(r =>
            ({label: 'Free ' + r, num: true}))),
          l.domains.map(d => [d.domain].concat(resources.map(r => d.free[r] || '0')))));
      }
    }
    return out;
  }

  function token() {
    return sessionStorage.getItem(TOKEN_KEY);
  }

  function showLogin(message) {
    document.getElementById('login').hidden = false;
    document.getElementById('sign-out').hidden = true;
    document.getElementById('error').textContent = message || '';
  }

  async function poll() {
    clearTimeout(timer);
    const t = token();
    if (!t) {
      showLogin('');
      return;
    }
    try {
      const answer = await fetch(STATE, {headers: {Authorization: 'Bearer ' + t},
        cache: 'no-store'});
      const body = await answer.json();
      if (answer.status === 401) {
        sessionStorage.removeItem(TOKEN_KEY);
        showLogin('Not signed in: ' + body.message);
        return;
      }
      if (!answer.ok) {
        document.getElementById('error').textContent = 'The operator answered ' +
          answer.status + ': ' + body.message;
      } else {
        document.getElementById('error').textContent = '';
        document.getElementById('login').hidden = true;
        document.getElementById('sign-out').hidden = false;
        document.getElementById('who').textContent = 'Signed in as ' + body.user;
        document.getElementById('updated').textContent = 'Updated ' +
          new Date(body.generatedAt).toLocaleTimeString() + ' (every ' + POLL_MS / 1000 + ' s)';
        render('queues', body.clusterQueues, queues);
        render('cohorts', body.cohorts, cohorts);
        render('pending', body.pending, pending);
        render('recent', body.recent, recent);
        render('topology', body.topology, topology);
        render('budgets', body.budgets, budgets);
      }
    } catch (e) {
      document.getElementById('error').textContent = 'Cannot reach the operator: ' + e.message;
    }
    timer = setTimeout(poll, POLL_MS);
  }

  document.addEventListener('DOMContentLoaded', () => {
    // A token handed over in the fragment (local mode prints such a link): the fragment never
    // leaves the browser; keep the token in this tab and take it out of the address bar.
    const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    if (match) {
      sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
      history.replaceState(null, '', location.pathname + location.search);
    }
    for (const link of document.querySelectorAll('nav a')) {
      link.addEventListener('click', event => {
        const heading = document.querySelector(link.getAttribute('href') + ' h2');
        if (heading) {
          event.preventDefault();
          heading.focus();
          heading.scrollIntoView();
        }
      });
    }
    document.getElementById('login-form').addEventListener('submit', event => {
      event.preventDefault();
      const input = document.getElementById('token');
      sessionStorage.setItem(TOKEN_KEY, input.value.trim());
      input.value = '';
      poll();
    });
    document.getElementById('sign-out').addEventListener('click', () => {
      sessionStorage.removeItem(TOKEN_KEY);
      clearTimeout(timer);
      for (const id of ['queues', 'cohorts', 'pending', 'recent', 'topology', 'budgets']) {
        delete rendered[id];
        document.getElementById(id + '-body').replaceChildren(none('Signed out.'));
      }
      document.getElementById('who').textContent = '';
      showLogin('Signed out.');
      document.getElementById('token').focus();
    });
    poll();
  });
})();
